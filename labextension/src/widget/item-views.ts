// The plain transcript items: the prompt, an assistant bubble (markdown, with its thinking
// folded away) and notices.
import { h } from "../render/dom";
import { renderMarkdown } from "../render/markdown";
import { renderToolCard } from "./tool-card";
import type { AssistantItem, Item, NoticeItem, UserItem } from "./transcript-items";

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
  }
}

export function renderUser(item: UserItem): HTMLElement {
  return h(
    "div",
    { class: "shard-msg shard-msg-user" },
    h("div", { class: "shard-msg-role" }, "You"),
    h("pre", { class: "shard-msg-text" }, item.text),
  );
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
