// kind "text": plain text, markdown (rendered without HTML) or a code block.
import { h } from "../dom";
import { isOneOf, isOptional, isRecord, isString } from "../guards";
import { renderMarkdown } from "../markdown";
import { renderShell } from "../shell-highlight";
import type { TextDescriptor } from "../../wire";

const FORMATS = ["plain", "markdown", "code"] as const;

export function isTextDescriptor(value: unknown): value is TextDescriptor {
  return (
    isRecord(value) &&
    value["kind"] === "text" &&
    isString(value["text"]) &&
    isOptional(value["format"], (f): f is TextDescriptor["format"] => isOneOf(f, FORMATS)) &&
    isOptional(value["language"], isString)
  );
}

export function renderText(d: TextDescriptor): HTMLElement {
  switch (d.format ?? "plain") {
    case "markdown":
      return renderMarkdown(d.text);
    case "code": {
      if (["bash", "sh", "shell", "zsh"].includes(d.language ?? "")) return renderShell(d.text);
      const code = h("code", null, d.text);
      const lang = d.language ?? "";
      if (/^[\w+#.-]{1,32}$/.test(lang)) code.className = `language-${lang}`;
      return h("pre", { class: "shard-code" }, code);
    }
    default:
      return h("pre", { class: "shard-text-plain" }, d.text);
  }
}
