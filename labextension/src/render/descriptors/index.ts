// One renderer per RenderDescriptor kind; anything unknown or malformed falls back to its JSON.
import { h } from "../dom";
import { isRecord } from "../guards";
import { renderJson } from "../json-text";
import { isCellEditDescriptor, renderCellEdit } from "./cell-edit";
import { isDiffDescriptor, renderDiff } from "./diff";
import { isKvDescriptor, renderKv } from "./kv";
import { isProgressDescriptor, renderProgress } from "./progress";
import { isStatusDescriptor, renderStatus } from "./status";
import { isTerminalDescriptor, renderTerminal } from "./terminal";
import { isTextDescriptor, renderText } from "./text";
import { isTreeDescriptor, renderTree } from "./tree";
import { isWebPageDescriptor, renderWebPage } from "./web-page";
import type { RenderDescriptor } from "../../wire";

type Renderer = (value: unknown) => HTMLElement | null;

/** Keyed by kind; each entry renders only a value its guard accepts. */
export const RENDERERS: Readonly<Record<RenderDescriptor["kind"], Renderer>> = {
  text: (v) => (isTextDescriptor(v) ? renderText(v) : null),
  kv: (v) => (isKvDescriptor(v) ? renderKv(v) : null),
  diff: (v) => (isDiffDescriptor(v) ? renderDiff(v) : null),
  tree: (v) => (isTreeDescriptor(v) ? renderTree(v) : null),
  progress: (v) => (isProgressDescriptor(v) ? renderProgress(v) : null),
  status: (v) => (isStatusDescriptor(v) ? renderStatus(v) : null),
  cell_edit: (v) => (isCellEditDescriptor(v) ? renderCellEdit(v) : null),
  terminal: (v) => (isTerminalDescriptor(v) ? renderTerminal(v) : null),
  web_page: (v) => (isWebPageDescriptor(v) ? renderWebPage(v) : null),
};

export function renderDescriptor(value: unknown): HTMLElement {
  const kind = isRecord(value) && typeof value["kind"] === "string" ? value["kind"] : "";
  const renderer = Object.hasOwn(RENDERERS, kind)
    ? RENDERERS[kind as RenderDescriptor["kind"]]
    : undefined;
  let body: HTMLElement | null = null;
  try {
    body = renderer ? renderer(value) : null;
  } catch {
    body = null;
  }
  const known = body !== null;
  const wrapper = h("div", {
    class: known ? `shard-render shard-render-${kind}` : "shard-render shard-render-unknown",
  });
  wrapper.appendChild(body ?? renderJson(value, "shard-json shard-fallback"));
  return wrapper;
}

export function renderDescriptors(values: readonly unknown[]): HTMLElement {
  return h("div", { class: "shard-renders" }, ...values.map(renderDescriptor));
}
