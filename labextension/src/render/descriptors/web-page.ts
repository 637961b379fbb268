// kind "web_page": a page web_fetch read or a hit web_search found: title, URL, the text folded.
import { h } from "../dom";
import { isRecord, isString } from "../guards";
import { safeLink } from "../safe-url";
import type { WebPageDescriptor } from "../../wire";

export function isWebPageDescriptor(value: unknown): value is WebPageDescriptor {
  return (
    isRecord(value) &&
    value["kind"] === "web_page" &&
    isString(value["url"]) &&
    (value["title"] === undefined || isString(value["title"])) &&
    (value["text"] === undefined || isString(value["text"]))
  );
}

export function renderWebPage(d: WebPageDescriptor): HTMLElement {
  const title = d.title || d.url;
  const card = h(
    "div",
    { class: "shard-web-page" },
    h("div", { class: "shard-web-title" }, title),
    h("div", { class: "shard-web-url" }, safeLink(d.url, d.url)),
  );
  if (d.text) {
    card.appendChild(
      h(
        "details",
        { class: "shard-web-text" },
        h("summary", null, `text (${d.text.length.toLocaleString("en")} characters)`),
        h("pre", { class: "shard-text-plain" }, d.text),
      ),
    );
  }
  return card;
}
