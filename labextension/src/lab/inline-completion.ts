// Inline (ghost-text) completion in Lab's notebooks and editors, through JupyterLab's own inline
// completer: an `IInlineCompletionProvider` whose fetch asks the gateway's `/shard/api/complete`
// (the model and its keys stay on the server) with the code around the cursor and a notebook's
// cells above. Off by default: the Inline Completer settings (Settings Editor) switch "Shard" on.
// Lab debounces the typing (`debouncerDelay`); a newer request for the same editor cancels the one
// still in flight (its fetch is aborted, and the server cancels the editor's earlier model request
// before it starts the next), so one editor has at most one request in flight.
import type {
  CompletionHandler,
  IInlineCompletionContext,
  IInlineCompletionItem,
  IInlineCompletionList,
  IInlineCompletionProvider,
} from "@jupyterlab/completer";
import { URLExt } from "@jupyterlab/coreutils";
import { ServerConnection } from "@jupyterlab/services";
import type { Widget } from "@lumino/widgets";
import { isRecord, isString } from "../render/guards";

export const INLINE_PROVIDER_ID = "shard-jupyterlab:inline-completion";
const MAX_CELLS_ABOVE = 20;

/** What a notebook panel offers for context, seen structurally (a file editor has none). */
interface CellsView {
  readonly content: {
    readonly widgets: readonly {
      readonly model: { readonly type: string; readonly sharedModel: { getSource(): string } };
    }[];
    readonly activeCellIndex: number;
  };
}

function isCellsView(widget: Widget): widget is Widget & CellsView {
  const content: unknown = (widget as unknown as { content?: unknown }).content;
  return isRecord(content) && Array.isArray(content["widgets"]);
}

/** The code cells above the active one, nearest last, at most MAX_CELLS_ABOVE. */
export function cellsAbove(widget: Widget): string[] {
  if (!isCellsView(widget)) return [];
  const { widgets, activeCellIndex } = widget.content;
  return widgets
    .slice(0, Math.max(0, activeCellIndex))
    .filter((cell) => cell.model.type === "code")
    .map((cell) => cell.model.sharedModel.getSource())
    .filter((source) => source.trim() !== "")
    .slice(-MAX_CELLS_ABOVE);
}

export function languageOf(mimeType: string | undefined): string {
  if (!mimeType || mimeType === "text/x-ipython") return "python";
  const name = mimeType.split("/").pop() ?? mimeType;
  return name.replace(/^x-/, "");
}

function pathOf(widget: Widget): string {
  const context: unknown = (widget as unknown as { context?: unknown }).context;
  return isRecord(context) && isString(context["path"]) ? context["path"] : "";
}

export interface CompletionBody {
  readonly prefix: string;
  readonly suffix: string;
  readonly language: string;
  readonly path: string;
  readonly cells_above: readonly string[];
}

export function completionBody(
  request: CompletionHandler.IRequest,
  widget: Widget,
): CompletionBody | null {
  const prefix = request.text.slice(0, request.offset);
  if (prefix.trim() === "") return null; // an empty editor: nothing to go on
  return {
    prefix,
    suffix: request.text.slice(request.offset),
    language: languageOf(request.mimeType),
    path: pathOf(widget),
    cells_above: cellsAbove(widget),
  };
}

export class ShardInlineProvider implements IInlineCompletionProvider {
  readonly identifier = INLINE_PROVIDER_ID;
  readonly name = "Shard";
  /** Lab's per-provider settings: off until a person switches it on; a short debounce */
  readonly schema = {
    default: { enabled: false, debouncerDelay: 120, timeout: 15000 },
  };
  private readonly inFlight = new Map<string, AbortController>();

  constructor(private readonly settings = ServerConnection.makeSettings()) {}

  async fetch(
    request: CompletionHandler.IRequest,
    context: IInlineCompletionContext,
  ): Promise<IInlineCompletionList<IInlineCompletionItem>> {
    const key = context.widget.id;
    this.inFlight.get(key)?.abort(); // the newer keystroke wins
    const body = completionBody(request, context.widget);
    if (body === null) return { items: [] };
    const controller = new AbortController();
    this.inFlight.set(key, controller);
    try {
      const response = await ServerConnection.makeRequest(
        URLExt.join(this.settings.baseUrl, "shard/api/complete"),
        {
          method: "POST",
          body: JSON.stringify({ ...body, editor: key }),
          signal: controller.signal,
        },
        this.settings,
      );
      const data: unknown = await response.json();
      if (!response.ok) {
        const message = isRecord(data) && isString(data["message"]) ? data["message"] : "";
        return { items: [{ insertText: "", error: { message: `Shard: ${message}` } }] };
      }
      const text = isRecord(data) && isString(data["text"]) ? data["text"] : "";
      return { items: text ? [{ insertText: text }] : [] };
    } catch {
      return { items: [] }; // aborted by a newer request, or the server is gone
    } finally {
      if (this.inFlight.get(key) === controller) this.inFlight.delete(key);
    }
  }
}
