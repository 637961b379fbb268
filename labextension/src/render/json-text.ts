// Any JSON value as indented text: the fallback view and how tool inputs are shown.
import { h } from "./dom";

export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

export function renderJson(value: unknown, className = "shard-json"): HTMLElement {
  return h("pre", { class: className }, jsonText(value));
}
