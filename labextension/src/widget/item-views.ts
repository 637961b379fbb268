// The plain transcript items: the prompt, an assistant bubble (markdown, with its thinking
// folded away) and notices.
import { h } from "../render/dom";
import { renderMarkdown } from "../render/markdown";
import { renderImage, renderToolCard } from "./tool-card";
import type {
  AssistantItem,
  CommandItem,
  ContextItem,
  HookItem,
  Item,
  NoticeItem,
  SteerItem,
  UserItem,
} from "./transcript-items";

type PlainItem = Exclude<Item, { kind: "permission" } | { kind: "ui" }>;

/** Every item that is not a dialog, drawn the same in the live view and in saved outputs. */
export function renderPlainItem(item: PlainItem, ownClientId: string | null): HTMLElement {
  switch (item.kind) {
    case "user":
      return renderUser(item);
    case "assistant":
      return renderAssistant(item);
    case "tool":
      return renderToolCard(item, ownClientId);
    case "notice":
      return renderNotice(item);
    case "steer":
      return renderSteer(item);
    case "context":
      return renderContext(item);
    case "command":
      return renderCommand(item);
    case "hook":
      return renderHook(item);
  }
}

const HOOK_TONES: Readonly<Record<string, string>> = {
  block: "warn",
  deny: "warn",
  stop: "warn",
  continue: "warn",
  error: "error",
};

/** A hook's run: its event (and tool), command, decision, how it ended; its reason and note. */
export function renderHook(item: HookItem): HTMLElement {
  const run = item.run;
  const tone = HOOK_TONES[run.decision] ?? "info";
  const ended = run.timed_out ? "timed out" : `exit ${String(run.exit_code)}`;
  const facts = `${run.decision} · ${ended} · ${String(run.duration_ms)} ms${run.sandboxed ? " · sandboxed" : ""}`;
  return h(
    "div",
    {
      class: `shard-hook-card shard-tone-${tone}`,
      attrs: { "data-event": run.event, "data-decision": run.decision, role: "status" },
    },
    h(
      "div",
      { class: "shard-hook-head" },
      h(
        "span",
        { class: "shard-hook-event" },
        `hook ${run.event}${run.tool ? ` (${run.tool})` : ""}`,
      ),
      " ",
      h("code", { class: "shard-hook-command" }, run.command),
      " ",
      h("span", { class: "shard-hook-facts" }, facts),
    ),
    run.reason ? h("div", { class: "shard-hook-reason" }, run.reason) : null,
    run.system_message ? h("div", { class: "shard-hook-message" }, run.system_message) : null,
  );
}

const STEER_STATES: Record<SteerItem["status"], string> = {
  admitted: "admitted: in the agent's next request",
  rejected: "rejected",
  superseded: "superseded",
  queued: "queued for the next turn",
};

/** A steer with its state next to the text (every client shows the same receipt). */
export function renderSteer(item: SteerItem): HTMLElement {
  const state = STEER_STATES[item.status] + (item.reason ? ` — ${item.reason}` : "");
  return h(
    "div",
    { class: `shard-msg shard-msg-user shard-steer-item shard-steer-${item.status}` },
    h(
      "div",
      { class: "shard-msg-role" },
      "Steer ",
      h("span", { class: "shard-steer-status", attrs: { "data-status": item.status } }, state),
    ),
    h("pre", { class: "shard-msg-text" }, item.text),
    ...(item.images.length > 0 ? [renderPromptImages(item.images, "steer")] : []),
  );
}

/** Injected context: what it is, folded (it can be a whole file or a long output). */
export function renderContext(item: ContextItem): HTMLElement {
  const what = item.label ? `${item.contextKind}: ${item.label}` : item.contextKind;
  return h(
    "details",
    { class: "shard-msg shard-msg-user shard-context-item" },
    h("summary", { class: "shard-msg-role" }, `Context (${what}) — sent with the next request`),
    h("pre", { class: "shard-msg-text" }, item.text),
  );
}

/** A `/` command and its output (markdown), or its error; who ran it when it was not a cell. */
export function renderCommand(item: CommandItem): HTMLElement {
  const output = item.ok
    ? renderMarkdown(item.markdown)
    : h("div", { class: "shard-command-error", attrs: { role: "alert" } }, item.markdown);
  return h(
    "div",
    { class: `shard-msg shard-command-item${item.ok ? "" : " shard-command-failed"}` },
    h(
      "div",
      { class: "shard-msg-role" },
      h("code", { class: "shard-command-text" }, item.text),
      item.by ? h("span", { class: "shard-command-by" }, ` — ${item.by}`) : null,
    ),
    output,
  );
}

export function renderUser(item: UserItem): HTMLElement {
  return h(
    "div",
    { class: "shard-msg shard-msg-user" },
    h("div", { class: "shard-msg-role" }, "You"),
    h("pre", { class: "shard-msg-text" }, item.text),
    ...(item.images.length > 0 ? [renderPromptImages(item.images)] : []),
  );
}

/** The prompt's images as thumbnails (raster base64 only, like a tool's), a gone one as its note. */
function renderPromptImages(images: UserItem["images"], what = "prompt"): HTMLElement {
  const strip = h("div", {
    class: "shard-msg-images",
    attrs: { role: "group", "aria-label": `images sent with the ${what}` },
  });
  images.forEach((block, i) => {
    const shown =
      block.type === "image"
        ? renderImage(
            block.media_type,
            block.data,
            `image ${i + 1} sent with the ${what}`,
            "shard-msg-image",
          )
        : h("span", { class: "shard-msg-image-gone" }, block.text);
    if (shown) strip.append(shown);
  });
  return strip;
}

export function renderAssistant(item: AssistantItem): HTMLElement {
  const bubble = h("div", {
    class: item.streaming
      ? "shard-msg shard-msg-assistant shard-streaming"
      : "shard-msg shard-msg-assistant",
  });
  bubble.appendChild(
    h(
      "div",
      { class: "shard-msg-role" },
      "Agent",
      item.streaming
        ? h("span", { class: "shard-cursor", attrs: { "aria-label": "streaming" } }, " ▍")
        : null,
    ),
  );
  if (item.thinking) {
    const details = h(
      "details",
      { class: "shard-thinking" },
      h("summary", null, "Thinking"),
      h("pre", { class: "shard-thinking-text" }, item.thinking),
    );
    details.open = item.streaming && !item.text;
    bubble.appendChild(details);
  }
  if (item.text) bubble.appendChild(renderMarkdown(item.text));
  return bubble;
}

export function renderNotice(item: NoticeItem): HTMLElement {
  return h(
    "div",
    {
      class: `shard-notice shard-tone-${item.tone}`,
      attrs: { role: item.tone === "error" ? "alert" : "status" },
    },
    item.text,
  );
}
