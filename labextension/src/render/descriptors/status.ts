// kind "status": one line with a tone (info, warn, error, success).
import { h } from "../dom";
import { isOneOf, isRecord, isString } from "../guards";
import type { StatusDescriptor } from "../../wire";

const TONES = ["info", "warn", "error", "success"] as const;
const ICONS: Readonly<Record<(typeof TONES)[number], string>> = {
  info: "ℹ",
  warn: "⚠",
  error: "✖",
  success: "✔",
};

export function isStatusDescriptor(value: unknown): value is StatusDescriptor {
  return (
    isRecord(value) &&
    value["kind"] === "status" &&
    isString(value["label"]) &&
    (value["tone"] === undefined || isOneOf(value["tone"], TONES))
  );
}

export function renderStatus(d: StatusDescriptor): HTMLElement {
  const tone = d.tone ?? "info";
  return h(
    "div",
    {
      class: `shard-status shard-tone-${tone}`,
      attrs: { role: tone === "error" ? "alert" : "status" },
    },
    h("span", { class: "shard-status-icon", attrs: { "aria-hidden": "true" } }, ICONS[tone]),
    h("span", { class: "shard-status-label" }, d.label),
  );
}
