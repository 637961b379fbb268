// The only way a URL from model or tool text reaches an attribute: absolute http(s) or nothing.
import { h } from "./dom";

export function safeHttpUrl(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return null;
  }
  return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
}

/** An external link opened without an opener; unsafe targets become plain text. */
export function safeLink(href: string, content: Node | string): HTMLElement {
  const url = safeHttpUrl(href);
  if (url === null)
    return h("span", { class: "shard-link-blocked", title: "link not followed" }, content);
  const anchor = h(
    "a",
    { class: "shard-link", attrs: { target: "_blank", rel: "noopener noreferrer" } },
    content,
  );
  anchor.href = url;
  return anchor;
}
