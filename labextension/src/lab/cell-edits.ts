// Accepting a proposed cell change in JupyterLab / Notebook 7: the notebook is opened (or found
// open), the cell found by id, and its source set in the notebook's shared model, the document
// notebook_edit changes under real-time collaboration: the rest of the notebook, saved or not,
// stays as it is, and the cell's undo takes the change back. A cell that no longer reads what
// the diff was made against is not touched: the renderer diffs again and asks again.
import { PageConfig } from "@jupyterlab/coreutils";
import type { IDocumentManager } from "@jupyterlab/docmanager";
import type { INotebookTracker, NotebookPanel } from "@jupyterlab/notebook";
import type { AcceptOutcome, CellEditHost } from "../render/descriptors/cell-edit";
import type { CellEditDescriptor } from "../wire";
import { underRoot } from "./cell-context";

/** Hears of a decision, to tell the agent that proposed it. */
export type Decided = (d: CellEditDescriptor, decision: "accepted" | "rejected") => void;

export class LabCellEdits implements CellEditHost {
  constructor(
    private readonly tracker: INotebookTracker,
    private readonly docManager: IDocumentManager | null,
    private readonly onDecided: Decided | null = null,
  ) {}

  async accept(d: CellEditDescriptor, expected: string | null): Promise<AcceptOutcome> {
    const panel = await this.notebook(d);
    if (panel === null)
      return { status: "failed", message: `${d.path} is not open here and could not be opened` };
    const cell = panel.content.widgets.find((c) => c.model.id === d.cell_id);
    if (cell === undefined)
      return { status: "failed", message: `cell ${d.cell_id} is no longer in ${d.path}` };
    const current = cell.model.sharedModel.getSource();
    if (expected === null || current !== expected) return { status: "changed", current };
    // its own undo step: not merged with the typing just before or after it
    const shared = cell.model.sharedModel as { undoManager?: { stopCapturing(): void } | null };
    shared.undoManager?.stopCapturing();
    cell.model.sharedModel.setSource(d.source);
    shared.undoManager?.stopCapturing();
    return { status: "applied" };
  }

  decided(d: CellEditDescriptor, decision: "accepted" | "rejected"): void {
    this.onDecided?.(d, decision);
  }

  private async notebook(d: CellEditDescriptor): Promise<NotebookPanel | null> {
    const path = underRoot(PageConfig.getOption("serverRoot") || "", d.file);
    const open = this.tracker.find((panel) =>
      path !== null ? panel.context.path === path : panel.context.path.endsWith(d.path),
    );
    if (open) {
      await open.context.ready;
      return open;
    }
    if (path === null || this.docManager === null) return null;
    const widget = this.docManager.openOrReveal(path);
    if (widget === undefined) return null;
    await widget.context.ready;
    const panel = this.tracker.find((p) => p.context.path === path);
    return panel ?? null;
  }
}
