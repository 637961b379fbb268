// What a cell action sends the agent: the cell's source and outputs as text (tracebacks without
// their colour codes, a table's head, the rest cut), its images as image blocks, the notebook and
// the cell's id, and the ask: fix, explain or the person's question, answered with a
// `propose_cell_edit` the person accepts or rejects. Pure: the Lab plugin hands it the cell JSON.
import { isRecord, isString } from "../render/guards";
import type { ImageBlock } from "../wire";
import { MAX_IMAGE_BYTES, MAX_IMAGES } from "../widget/composer-images";

export type CellAction = "fix" | "explain" | "ask" | "generate";

export interface CellRequest {
  readonly action: CellAction;
  /** the notebook as the agent names it (relative to its cwd when inside it) */
  readonly notebook: string;
  readonly cellId: string;
  readonly cellType: string;
  readonly source: string;
  /** the cell's outputs in nbformat JSON */
  readonly outputs: readonly unknown[];
  readonly executionCount: number | null;
  readonly language: string;
  /** "ask": the person's question; "explain": the output chosen, when one was */
  readonly question?: string;
  readonly output?: number;
}

export interface CellPrompt {
  readonly text: string;
  readonly images: ImageBlock[];
}

const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
export { MAX_IMAGE_BYTES, MAX_IMAGES };
const MAX_SOURCE_CHARS = 40_000;
const MAX_TEXT_CHARS = 8_000;
const TABLE_HEAD_LINES = 25;
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

function text(value: unknown): string {
  if (isString(value)) return value;
  return Array.isArray(value) ? value.filter(isString).join("") : "";
}

function clip(value: string, limit: number): string {
  return value.length <= limit
    ? value
    : `${value.slice(0, limit)}\n… (${value.length - limit} more characters not sent)`;
}

function imageOf(data: Readonly<Record<string, unknown>>): [ImageBlock | null, string] {
  for (const media of IMAGE_TYPES) {
    const raw = data[media];
    if (raw === undefined) continue;
    const base64 = text(raw).replace(/\s+/g, "");
    const bytes = Math.floor((base64.length * 3) / 4);
    if (bytes > MAX_IMAGE_BYTES)
      return [
        null,
        `(a ${(bytes / 1e6).toFixed(1)} MB ${media} image was left out: over the ` +
          `${(MAX_IMAGE_BYTES / 1e6).toFixed(2)} MB an image may be)`,
      ];
    return [{ type: "image", media_type: media, data: base64 }, `(an ${media} image, attached)`];
  }
  if (data["image/svg+xml"] !== undefined) return [null, "(an SVG image, not sent)"];
  return [null, ""];
}

/** One output as text, and its image if it has one. */
export function describeOutput(output: unknown): [string, ImageBlock | null] {
  if (!isRecord(output)) return ["", null];
  const type = output["output_type"];
  if (type === "stream")
    return [
      `[${text(output["name"]) || "stream"}]\n${clip(text(output["text"]), MAX_TEXT_CHARS)}`,
      null,
    ];
  if (type === "error") {
    const trace = Array.isArray(output["traceback"])
      ? output["traceback"].filter(isString).join("\n").replace(ANSI, "")
      : "";
    const head = `${text(output["ename"])}: ${text(output["evalue"])}`;
    return [clip(trace || head, MAX_TEXT_CHARS), null];
  }
  const data = isRecord(output["data"]) ? output["data"] : {};
  const plain = text(data["text/plain"]);
  const [image, note] = imageOf(data);
  if (/<table/i.test(text(data["text/html"]))) {
    const rows = plain.split("\n");
    const head = rows.slice(0, TABLE_HEAD_LINES).join("\n");
    const more =
      rows.length > TABLE_HEAD_LINES ? `\n… (${rows.length - TABLE_HEAD_LINES} more rows)` : "";
    return [`[a table; its head]\n${head}${more}`, image];
  }
  const parts = [note, image === null ? clip(plain, MAX_TEXT_CHARS) : ""].filter(Boolean);
  return [parts.join("\n"), image];
}

function attribute(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}

function ask(request: CellRequest): string {
  const where = `path "${request.notebook}", cell_id "${request.cellId}"`;
  const propose =
    `propose the change with propose_cell_edit (${where}): the person sees it as a diff on the cell ` +
    "and accepts or rejects it, so do not edit the notebook yourself";
  if (request.action === "fix")
    return `Fix the error in this cell of ${request.notebook}. Say briefly what was wrong, then ${propose}.`;
  if (request.action === "explain") {
    const which = request.output !== undefined ? `output ${request.output + 1}` : "output";
    return `Explain this cell's ${which} in ${request.notebook}. If the cell should change, ${propose}.`;
  }
  if (request.action === "generate") {
    const what = request.question?.trim() || "the code this cell's comments describe";
    return (
      `Write the code for this cell of ${request.notebook}: ${what}. Propose the whole new ` +
      `cell source (keep what should stay) with propose_cell_edit (${where}): the person sees ` +
      "it as a diff on the cell and accepts or rejects it, so do not edit the notebook yourself."
    );
  }
  const question = request.question?.trim() || "What does this cell do?";
  return `${question}\n\n(About this cell of ${request.notebook}. If the answer is a change to it, ${propose}.)`;
}

export function cellPrompt(request: CellRequest): CellPrompt {
  const images: ImageBlock[] = [];
  const outputs: string[] = [];
  request.outputs.forEach((output, index) => {
    let [body, image] = describeOutput(output);
    if (image !== null && images.length >= MAX_IMAGES) {
      body = `${body}\n(more than ${MAX_IMAGES} images: this one was left out)`;
      image = null;
    }
    if (image !== null) images.push(image);
    const kind = isRecord(output) ? text(output["output_type"]) : "output";
    outputs.push(`<output n="${index + 1}" type="${attribute(kind)}">\n${body}\n</output>`);
  });
  const count =
    request.executionCount === null ? "" : ` execution_count="${request.executionCount}"`;
  const cell =
    `<cell notebook="${attribute(request.notebook)}" id="${attribute(request.cellId)}" ` +
    `type="${attribute(request.cellType)}" language="${attribute(request.language)}"${count}>\n` +
    `${clip(request.source, MAX_SOURCE_CHARS)}\n</cell>`;
  const shown = outputs.length ? `\n${outputs.join("\n")}` : "\n(no outputs)";
  return { text: `${ask(request)}\n\n${cell}${shown}`, images };
}

/** The notebook as an agent in `cwd` names it: relative when inside, else absolute. */
export function pathForAgent(root: string, notebook: string, cwd: string): string {
  const base = root.replace(/\/+$/, "");
  const absolute = base ? `${base}/${notebook}` : notebook;
  const folder = cwd.replace(/\/+$/, "");
  return absolute.startsWith(`${folder}/`) ? absolute.slice(folder.length + 1) : absolute;
}

/** The folder a notebook is in, as an absolute path under the server's root. */
export function folderOf(root: string, notebook: string): string {
  const base = root.replace(/\/+$/, "");
  const parts = notebook.split("/").slice(0, -1).filter(Boolean);
  return parts.length ? `${base}/${parts.join("/")}` : base || "/";
}

/** The server-relative path of an absolute file, or null when it is outside the root. */
export function underRoot(root: string, file: string): string | null {
  const base = root.replace(/\/+$/, "");
  return file.startsWith(`${base}/`) ? file.slice(base.length + 1) : null;
}
