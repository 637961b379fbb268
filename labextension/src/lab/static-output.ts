// What a saved Shard output shows with no kernel: a tool card for a tool result, descriptors for
// anything else, and a whole transcript for a `%%shard` snapshot. Pure DOM from data (no HTML
// parsing), so it is safe in untrusted notebooks.
import { h } from "../render/dom";
import { isRecord } from "../render/guards";
import { renderDescriptors } from "../render/descriptors/index";
import { describeResolution } from "../render/dialogs/permission-dialog";
import { renderPlainItem } from "../widget/item-views";
import { renderToolCard } from "../widget/tool-card";
import { deriveItems, type Item } from "../widget/transcript-items";
import type { RenderDescriptor } from "../wire";

const NONE = { permissions: [], ui: [] } as const;

export function renderStaticItem(item: Item): HTMLElement {
  if (item.kind === "permission")
    return h(
      "div",
      { class: "shard-permission-folded" },
      item.resolved
        ? describeResolution(item.resolved)
        : `Permission asked for ${item.request.tool}: ${item.request.prompt}`,
    );
  if (item.kind === "ui") return h("div", { class: "shard-permission-folded" }, item.request.title);
  return renderPlainItem(item, null);
}

export function renderTranscript(events: readonly unknown[]): HTMLElement {
  const items = deriveItems(events, NONE);
  return h(
    "div",
    { class: "shard-transcript shard-transcript-static", attrs: { role: "log" } },
    ...items.map(renderStaticItem),
  );
}

/** A running call's card (a `tool_call` event with no result yet): when it started, or null. */
export function runningSince(data: unknown): { since: number } | null {
  if (!isRecord(data) || !isRecord(data["event"])) return null;
  const event = data["event"];
  if (event["type"] !== "tool_call") return null;
  return typeof event["ts"] === "number" ? { since: event["ts"] } : null;
}

/** `application/vnd.shard.render+json`: `{version, descriptors, event?, update?, transcript?}`. */
export function renderOutput(data: unknown): HTMLElement {
  if (!isRecord(data)) return h("div", { class: "shard-output" }, "(empty Shard output)");
  if (Array.isArray(data["transcript"]))
    return h(
      "div",
      { class: "shard-widget shard-output shard-snapshot" },
      renderTranscript(data["transcript"]),
    );
  const event = data["event"];
  if (isRecord(event) && (event["type"] === "tool_result" || event["type"] === "tool_call")) {
    // a running card may carry the tool's latest progress (`update`, a tool_update event)
    const update = data["update"];
    const events = isRecord(update) && update["type"] === "tool_update" ? [event, update] : [event];
    const item = deriveItems(events, NONE).find((i) => i.kind === "tool");
    if (item)
      return h("div", { class: "shard-widget shard-output" }, renderToolCard(item as never));
  }
  const descriptors = Array.isArray(data["descriptors"])
    ? (data["descriptors"] as RenderDescriptor[])
    : [];
  return h("div", { class: "shard-widget shard-output" }, renderDescriptors(descriptors));
}
