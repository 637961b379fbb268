// Offers the agent widget the cells of the notebook it is drawn in (widget/host-cells.ts): the
// notebook panel whose node holds the widget, its cells as the person sees them.
import type { INotebookTracker } from "@jupyterlab/notebook";
import { type HostCell, offerNotebookCells } from "../widget/host-cells";

export function offerWidgetCells(tracker: INotebookTracker): void {
  offerNotebookCells((el) => {
    const panel = tracker.find((p) => p.node.contains(el));
    if (!panel) return null;
    const cells = panel.content.widgets.map((cell): HostCell => {
      const json = cell.model.toJSON() as unknown as Readonly<Record<string, unknown>>;
      const count = json["execution_count"];
      return {
        id: cell.model.id,
        cell_type: cell.model.type,
        source: cell.model.sharedModel.getSource(),
        outputs: Array.isArray(json["outputs"]) ? json["outputs"] : [],
        execution_count: typeof count === "number" ? count : null,
      };
    });
    return { path: panel.context.path, cells };
  });
}
