// The cells of the notebook a widget is drawn in, as the page's host offers them: JupyterLab's
// Shard extension (and Notebook 7's) registers a finder under a page-wide key, and the widget's
// composer asks it for `@cell:`/`@output:` so they are the cells as the person sees them, unsaved
// edits and fresh outputs included. Without a host (another front end) the widget's Python side
// reads the saved notebook instead. Both bundles hold this module; `Symbol.for` is one key.
import { isRecord, isString } from "../render/guards";

export interface HostCell {
  readonly id: string;
  readonly cell_type: string;
  readonly source: string;
  /** nbformat outputs; for the completion list only their types */
  readonly outputs: readonly unknown[];
  readonly execution_count: number | null;
}

export interface HostNotebook {
  /** the notebook's path as the server names it */
  readonly path: string;
  readonly cells: readonly HostCell[];
}

type Finder = (el: HTMLElement) => HostNotebook | null;
const KEY = Symbol.for("shard.widget-notebook-cells");

function isNotebook(value: unknown): value is HostNotebook {
  return isRecord(value) && isString(value["path"]) && Array.isArray(value["cells"]);
}

/** The host's side: how to find the notebook an element is in. */
export function offerNotebookCells(find: Finder): void {
  (globalThis as Record<symbol, unknown>)[KEY] = find;
}

/** The notebook `el` is drawn in, when the page's host knows it; null otherwise. */
export function notebookCellsOf(el: HTMLElement): HostNotebook | null {
  const find = (globalThis as Record<symbol, unknown>)[KEY];
  if (typeof find !== "function") return null;
  try {
    const found: unknown = (find as Finder)(el);
    return isNotebook(found) ? found : null;
  } catch {
    return null;
  }
}

/** The cells with each output reduced to its type: enough to list them, small to send. */
export function outline(notebook: HostNotebook): HostNotebook {
  return {
    path: notebook.path,
    cells: notebook.cells.map((cell) => ({
      ...cell,
      outputs: cell.outputs.map((o) => ({ output_type: isRecord(o) ? o["output_type"] : "" })),
    })),
  };
}
