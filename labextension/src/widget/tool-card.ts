// A tool card: name, a one-line preview of the input (the whole input one click away), status,
// and the result — its render descriptors, else its text and images.
import { h } from "../render/dom";
import { isRecord, isString } from "../render/guards";
import { jsonText, renderJson } from "../render/json-text";
import { renderDescriptors } from "../render/descriptors/index";
import { describeResolution } from "../render/dialogs/permission-dialog";
import type { ToolResult } from "../wire";
import type { ToolItem, ToolStatus } from "./transcript-items";

const STATUS_TEXT: Readonly<Record<ToolStatus, string>> = {
  streaming: "preparing…",
  running: "running…",
  awaiting_permission: "awaiting permission",
  done: "done",
  error: "error",
  denied: "denied",
  aborted: "aborted",
};
const PREVIEW_CHARS = 120;
/** A call whose arguments still stream shows only after this long: most finish streaming within
 * it, and a "tool · preparing…" card that turns into the real one a moment later only flickers. */
export const PREPARING_DELAY_MS = 300;
const firstSeen = new WeakMap<ToolItem, number>();
const SKILL_TOOL = "load_skill";
const MAX_TEXT_CHARS = 20_000;
const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/** The card; `ownClientId` lets an answered permission say "by you". */
export function renderToolCard(item: ToolItem, ownClientId: string | null = null): HTMLElement {
  const input = item.input ?? item.inputText;
  // A skill activation reads as one: badged, and its result is the skill card the tool sent.
  const skill = item.name === SKILL_TOOL;
  const header = h(
    "div",
    { class: "shard-tool-header" },
    h("span", { class: "shard-tool-name" }, item.name || "tool"),
    skill ? h("span", { class: "shard-badge shard-skill-badge" }, "skill") : null,
    h("span", { class: "shard-tool-preview" }, preview(item.input, item.inputText)),
    item.readOnly ? h("span", { class: "shard-badge" }, "read-only") : null,
    h("span", { class: `shard-tool-status shard-tool-${item.status}` }, STATUS_TEXT[item.status]),
  );
  const details = h(
    "details",
    { class: "shard-tool-input" },
    h("summary", null, "Input"),
    typeof input === "string" ? h("pre", { class: "shard-json" }, input) : renderJson(input),
  );
  const decision = item.decision
    ? h(
        "div",
        {
          class: `shard-tool-decision shard-tone-${item.decision.decision === "deny" ? "error" : "success"}`,
        },
        describeResolution(item.decision, ownClientId),
      )
    : null;
  const card = h(
    "div",
    { class: `shard-tool shard-tool-is-${item.status}${skill ? " shard-tool-skill" : ""}` },
    header,
    decision,
    details,
  );
  if (item.result) card.appendChild(renderResult(item.result));
  else if (item.partial) card.appendChild(renderResult(item.partial, "shard-tool-partial"));
  holdWhilePreparing(item, card);
  return card;
}

/** Hides a card whose arguments stream until PREPARING_DELAY_MS after the call was first seen
 * (re-renders of the same call keep that moment); any later status shows it at once. */
function holdWhilePreparing(item: ToolItem, card: HTMLElement): void {
  if (item.status !== "streaming") return;
  const now = Date.now();
  const since = firstSeen.get(item) ?? now;
  firstSeen.set(item, since);
  const left = since + PREPARING_DELAY_MS - now;
  if (left <= 0) return;
  card.classList.add("shard-tool-held");
  setTimeout(() => card.classList.remove("shard-tool-held"), left);
}

/** A result, or a running tool's latest partial state (its own class: it is not final). */
function renderResult(result: ToolResult | null, extra = ""): HTMLElement {
  const base = result?.is_error ? "shard-tool-result shard-tool-result-error" : "shard-tool-result";
  const body = h("div", { class: extra ? `${base} ${extra}` : base });
  if (!result) return body;
  if (Array.isArray(result.render) && result.render.length > 0) {
    body.appendChild(renderDescriptors(result.render));
    return body;
  }
  for (const block of Array.isArray(result.content) ? result.content : []) {
    const node = renderContentBlock(block);
    if (node) body.appendChild(node);
  }
  return body;
}

function renderContentBlock(block: unknown): HTMLElement | null {
  if (!isRecord(block)) return null;
  if (block["type"] === "text" && isString(block["text"])) {
    const text = block["text"];
    const shown =
      text.length > MAX_TEXT_CHARS
        ? `${text.slice(0, MAX_TEXT_CHARS)}\n… (${text.length - MAX_TEXT_CHARS} more characters)`
        : text;
    return h("pre", { class: "shard-text-plain" }, shown);
  }
  if (block["type"] === "image" && isString(block["data"]) && isString(block["media_type"])) {
    return renderImage(block["media_type"], block["data"]);
  }
  return null;
}

/** Only raster types, only base64 data: a tool's image can never be SVG or a remote URL. */
export function renderImage(
  mediaType: string,
  data: string,
  alt = "image returned by the tool",
  cls = "shard-tool-image",
): HTMLElement | null {
  if (!IMAGE_TYPES.includes(mediaType) || !/^[A-Za-z0-9+/]+={0,2}$/.test(data)) return null;
  const img = h("img", { class: cls, attrs: { alt } });
  img.src = `data:${mediaType};base64,${data}`;
  return img;
}

function preview(input: Readonly<Record<string, unknown>> | null, streamed: string): string {
  let text = streamed;
  if (input) {
    const first = Object.values(input).find(isString);
    text = first ?? jsonText(input);
  }
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS)}…` : line;
}
