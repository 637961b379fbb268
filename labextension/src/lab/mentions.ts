// `@cell:`, `@output:` and `@file:` in the chat composer (beside `@var:`, var-mentions.ts): a cell
// of the focused notebook (`@cell:3`, its position, or `@cell:<id>`), its source and outputs as the
// cell actions send them (images go with the prompt), a cell's outputs alone (`@output:3`, or its
// second with `@output:3.2`), and a text file of the agent's workspace
// (`@file:src/app.py`, relative to the agent's folder). A path that leaves the agent's folder is
// refused, as the read tool refuses it: at once on the normalised path, and by the server, which
// reads the file following symbolic links (a link in the folder that points outside is refused).
// Each becomes context named with its source.
import type { INotebookTracker } from "@jupyterlab/notebook";
import { URLExt } from "@jupyterlab/coreutils";
import { type Contents, ServerConnection } from "@jupyterlab/services";
import { isRecord, isString } from "../render/guards";
import type { ImageBlock } from "../wire";
import { cellPrompt, MAX_IMAGES, underRoot } from "./cell-context";
import type { MentionOption } from "../widget/composer";
import { type VarContext, variableNames } from "./var-mentions";

const CELL = /(^|[\s(])@cell:([A-Za-z0-9_-]+)/g;
const OUTPUT = /(^|[\s(])@output:([A-Za-z0-9_-]+(?:\.\d+)?)/g;
const FILE = /(^|[\s(])@file:([^\s]+?)(?=[\s),;?!]|[.:](?:\s|$)|$)/g;

function found(pattern: RegExp, text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(pattern)) {
    const name = match[2] ?? "";
    if (name && !names.includes(name)) names.push(name);
  }
  return names;
}

export const cellMentions = (text: string): string[] => found(CELL, text);
export const fileMentions = (text: string): string[] => found(FILE, text);
/** `@output:3` (the outputs of cell 3, or of a cell id) and `@output:3.2` (its second) */
export const outputMentions = (text: string): string[] => found(OUTPUT, text);

/** `path` as an absolute path inside `cwd`, or null when it leaves it. */
export function insideFolder(cwd: string, path: string): string | null {
  const base = cwd.replace(/\/+$/, "");
  const parts: string[] = [];
  for (const part of (path.startsWith("/") ? path : `${base}/${path}`).split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length === 0) return null;
      parts.pop();
    } else parts.push(part);
  }
  const absolute = `/${parts.join("/")}`;
  return absolute === base || absolute.startsWith(`${base}/`) ? absolute : null;
}

export interface MentionSources {
  readonly tracker: INotebookTracker | null;
  /** the agent (its server reads `@file:`s) and its folder (absolute) */
  readonly agentId: string;
  readonly cwd: string;
  readonly settings: ServerConnection.ISettings;
}

export type ContextOutcome =
  | { readonly ok: true; readonly contexts: VarContext[]; readonly images: ImageBlock[] }
  | { readonly ok: false; readonly message: string };

async function fileContext(path: string, sources: MentionSources): Promise<VarContext | string> {
  if (insideFolder(sources.cwd, path) === null)
    return `@file:${path} is outside the agent's folder ${sources.cwd}`;
  // the server reads it with the read tool's containment: it sees symbolic links
  const url = URLExt.join(
    sources.settings.baseUrl,
    "shard/api/agents",
    encodeURIComponent(sources.agentId),
    `mention-file?path=${encodeURIComponent(path)}`,
  );
  let data: unknown;
  try {
    const response = await ServerConnection.makeRequest(url, {}, sources.settings);
    data = await response.json();
    if (!response.ok)
      return isRecord(data) && isString(data["message"]) ? data["message"] : `@file:${path} failed`;
  } catch {
    return `@file:${path} could not be read: the server did not answer`;
  }
  const text = isRecord(data) && isString(data["text"]) ? data["text"] : "";
  const more = isRecord(data) && data["more"] === true;
  const shown = more ? `${text}\n… (the file goes on: not sent)` : text;
  return { name: path, label: `@file:${path}`, text: shown, kind: "file" };
}

function cellContext(
  ref: string,
  tracker: INotebookTracker | null,
  images: ImageBlock[],
  kind: "cell" | "output" = "cell",
): VarContext | string {
  const panel = tracker?.currentWidget ?? null;
  if (panel === null) return `@${kind}: needs an open notebook (click into it first)`;
  const [cellRef = ref, nth] = kind === "output" ? ref.split(".") : [ref];
  const cells = panel.content.widgets;
  const cell = /^\d+$/.test(cellRef)
    ? cells[Number(cellRef) - 1]
    : cells.find((c) => c.model.id === cellRef);
  const where = panel.context.path.split("/").pop() ?? panel.context.path;
  if (cell === undefined)
    return `there is no cell ${cellRef} in ${where} (a position from 1, or an id)`;
  const json = cell.model.toJSON() as unknown as Readonly<Record<string, unknown>>;
  let outputs: unknown[] = Array.isArray(json["outputs"]) ? json["outputs"] : [];
  if (kind === "output") {
    if (nth !== undefined) outputs = outputs.slice(Number(nth) - 1, Number(nth));
    if (outputs.length === 0)
      return nth === undefined
        ? `cell ${cellRef} of ${where} has no outputs`
        : `cell ${cellRef} of ${where} has no output ${nth}`;
  }
  const prompt = cellPrompt({
    action: "ask",
    notebook: panel.context.path,
    cellId: cell.model.id,
    cellType: cell.model.type,
    source: cell.model.sharedModel.getSource(),
    outputs,
    executionCount: typeof json["execution_count"] === "number" ? json["execution_count"] : null,
    language: "python",
  });
  images.push(...prompt.images.slice(0, Math.max(0, MAX_IMAGES - images.length)));
  const body =
    kind === "output"
      ? prompt.text.slice(prompt.text.indexOf("</cell>") + "</cell>".length).trim()
      : prompt.text.slice(prompt.text.indexOf("<cell "));
  return { name: ref, label: `@${kind}:${ref} from ${where}`, text: body, kind: "output" };
}

/** The `@cell:` and `@file:` mentions of `text` as contexts (and the cells' images), or why not. */
export async function resolveContextMentions(
  text: string,
  sources: MentionSources,
  held: readonly ImageBlock[] = [],
): Promise<ContextOutcome> {
  const contexts: VarContext[] = [];
  const images: ImageBlock[] = [...held];
  for (const ref of cellMentions(text)) {
    const context = cellContext(ref, sources.tracker, images);
    if (typeof context === "string") return { ok: false, message: context };
    contexts.push(context);
  }
  for (const ref of outputMentions(text)) {
    const context = cellContext(ref, sources.tracker, images, "output");
    if (typeof context === "string") return { ok: false, message: context };
    contexts.push(context);
  }
  for (const path of fileMentions(text)) {
    const context = await fileContext(path, sources);
    if (typeof context === "string") return { ok: false, message: context };
    contexts.push(context);
  }
  return { ok: true, contexts, images };
}

export function hasContextMentions(text: string): boolean {
  return (
    cellMentions(text).length > 0 ||
    fileMentions(text).length > 0 ||
    outputMentions(text).length > 0
  );
}

const KINDS: readonly MentionOption[] = [
  { insert: "@file:", detail: "a file of the agent's folder" },
  { insert: "@cell:", detail: "a cell of the open notebook (source and outputs)" },
  { insert: "@output:", detail: "a cell's outputs" },
  { insert: "@var:", detail: "a variable in the open notebook's kernel" },
];
const MAX_OPTIONS = 20;

function firstLine(text: string): string {
  const line = text.split("\n").find((l) => l.trim() !== "") ?? "";
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

function cellOptions(kind: "cell" | "output", tracker: INotebookTracker | null): MentionOption[] {
  const cells = tracker?.currentWidget?.content.widgets ?? [];
  return cells
    .map((cell, index) => ({ cell, n: index + 1 }))
    .filter(({ cell }) => {
      if (kind === "cell") return true;
      const json = cell.model.toJSON() as unknown as Readonly<Record<string, unknown>>;
      return Array.isArray(json["outputs"]) && json["outputs"].length > 0;
    })
    .map(({ cell, n }) => ({
      insert: `@${kind}:${n}`,
      detail: firstLine(cell.model.sharedModel.getSource()) || `(empty ${cell.model.type} cell)`,
    }));
}

async function fileOptions(partial: string, sources: MentionListing): Promise<MentionOption[]> {
  const slash = partial.lastIndexOf("/");
  const folder = partial.slice(0, slash + 1);
  const start = partial.slice(slash + 1);
  const absolute = insideFolder(sources.cwd, folder || ".");
  const root = sources.root.replace(/\/+$/, "");
  const served =
    absolute === null ? null : absolute === root ? "" : underRoot(sources.root, absolute);
  if (served === null) return [];
  try {
    const listing = await sources.contents.get(served, { content: true });
    const entries: Contents.IModel[] = Array.isArray(listing.content) ? listing.content : [];
    return entries
      .filter((entry) => entry.name.startsWith(start) && !entry.name.startsWith("."))
      .sort((a, b) => a.name.localeCompare(b.name))
      .slice(0, MAX_OPTIONS)
      .map((entry) => ({
        insert: `@file:${folder}${entry.name}${entry.type === "directory" ? "/" : ""}`,
        detail: entry.type === "directory" ? "folder" : "",
      }));
  } catch {
    return [];
  }
}

export interface MentionListing {
  readonly tracker: INotebookTracker | null;
  readonly contents: Contents.IManager;
  readonly cwd: string;
  readonly root: string;
}

/** What completes the `@…` word being typed: the kinds, then cells, outputs or files. */
export async function mentionOptions(
  word: string,
  sources: MentionListing,
): Promise<MentionOption[]> {
  const colon = word.indexOf(":");
  if (colon < 0) return KINDS.filter((k) => k.insert.startsWith(word));
  const kind = word.slice(1, colon);
  const rest = word.slice(colon + 1);
  if (kind === "cell" || kind === "output")
    return cellOptions(kind, sources.tracker).filter((o) => o.insert.startsWith(word));
  if (kind === "file") return fileOptions(rest, sources);
  if (kind === "var")
    return (await variableNames(rest, sources.tracker)).map((v) => ({
      insert: `@var:${v.name}`,
      detail: v.type,
    }));
  return [];
}
