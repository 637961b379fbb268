// Markdown → DOM by walking marked's token stream. marked only tokenizes here; no HTML string is
// ever produced or parsed: raw HTML in the source shows as literal text, links keep only
// http(s) targets, and images become links (loading them would leak data to any URL a model
// writes).
import { lexer, type MarkedToken, type Token, type Tokens } from "marked";
import { h } from "./dom";
import { safeLink } from "./safe-url";

const MAX_DEPTH = 32;

export function renderMarkdown(source: string): HTMLElement {
  const root = h("div", { class: "shard-markdown" });
  appendBlocks(root, lexer(source, { gfm: true, breaks: false }), 0);
  return root;
}

function appendBlocks(parent: HTMLElement, tokens: readonly Token[], depth: number): void {
  for (const token of tokens) {
    const node =
      depth > MAX_DEPTH ? document.createTextNode(token.raw) : block(token as MarkedToken, depth);
    if (node) parent.appendChild(node);
  }
}

function block(token: MarkedToken, depth: number): Node | null {
  switch (token.type) {
    case "space":
    case "def":
      return null;
    case "heading":
      return inlineInto(h(headingTag(token.depth), null), token.tokens, depth);
    case "paragraph":
      return inlineInto(h("p", null), token.tokens, depth);
    case "code":
      return codeBlock(token);
    case "blockquote": {
      const quote = h("blockquote", null);
      appendBlocks(quote, token.tokens, depth + 1);
      return quote;
    }
    case "list":
      return list(token, depth);
    case "table":
      return table(token, depth);
    case "hr":
      return h("hr", null);
    case "html":
      return h("pre", { class: "shard-markdown-html" }, token.raw);
    case "text":
      return token.tokens
        ? inlineInto(h("p", null), token.tokens, depth)
        : h("p", null, decodeEntities(token.text));
    default:
      return inline(token, depth);
  }
}

function inline(token: MarkedToken, depth: number): Node {
  switch (token.type) {
    case "text":
      return token.tokens
        ? inlineInto(h("span", null), token.tokens, depth)
        : text(decodeEntities(token.text));
    case "escape":
      return text(token.text);
    case "strong":
      return inlineInto(h("strong", null), token.tokens, depth);
    case "em":
      return inlineInto(h("em", null), token.tokens, depth);
    case "del":
      return inlineInto(h("del", null), token.tokens, depth);
    case "codespan":
      return h("code", null, token.text);
    case "br":
      return h("br", null);
    case "link":
      return safeLink(token.href, inlineInto(h("span", null), token.tokens, depth));
    case "image":
      return safeLink(token.href, `[image: ${token.text || token.href}]`);
    case "checkbox":
      return text(token.checked ? "☑ " : "☐ ");
    default:
      // html tags and anything marked adds later: the source text, inert
      return text(token.raw);
  }
}

function inlineInto<E extends HTMLElement>(parent: E, tokens: readonly Token[], depth: number): E {
  for (const token of tokens) {
    parent.appendChild(
      depth > MAX_DEPTH ? text(token.raw) : inline(token as MarkedToken, depth + 1),
    );
  }
  return parent;
}

function codeBlock(token: Tokens.Code): HTMLElement {
  const code = h("code", null, token.text);
  const lang = token.lang?.trim() ?? "";
  if (/^[\w+#.-]{1,32}$/.test(lang)) code.className = `language-${lang}`;
  return h("pre", { class: "shard-code" }, code);
}

function list(token: Tokens.List, depth: number): HTMLElement {
  const element = token.ordered ? h("ol", null) : h("ul", null);
  if (token.ordered && typeof token.start === "number" && token.start !== 1) {
    element.setAttribute("start", String(token.start));
  }
  for (const item of token.items) {
    const li = h("li", null);
    if (item.loose) appendBlocks(li, item.tokens, depth + 1);
    else appendTight(li, item.tokens, depth + 1);
    element.appendChild(li);
  }
  return element;
}

/** A tight list item: its text inline (no <p>), nested lists and other blocks as blocks. */
function appendTight(li: HTMLElement, tokens: readonly Token[], depth: number): void {
  for (const token of tokens) {
    const t = token as MarkedToken;
    if (t.type === "text") inlineInto(li, t.tokens ?? [t], depth);
    else if (t.type === "checkbox") inlineInto(li, [t], depth);
    else appendBlocks(li, [t], depth);
  }
}

function table(token: Tokens.Table, depth: number): HTMLElement {
  const head = h(
    "tr",
    null,
    ...token.header.map((cell) => inlineInto(h("th", null), cell.tokens, depth)),
  );
  const rows = token.rows.map((row) =>
    h("tr", null, ...row.map((cell) => inlineInto(h("td", null), cell.tokens, depth))),
  );
  return h(
    "table",
    { class: "shard-markdown-table" },
    h("thead", null, head),
    h("tbody", null, ...rows),
  );
}

function headingTag(depth: number): "h1" | "h2" | "h3" | "h4" | "h5" | "h6" {
  const level = Math.min(6, Math.max(1, Math.round(depth)));
  return `h${level}` as "h1" | "h2" | "h3" | "h4" | "h5" | "h6";
}

function text(value: string): Text {
  return document.createTextNode(value);
}

const NAMED: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
};

/** Entities markdown authors write (&lt; &#39; …) as the characters they stand for — as text. */
export function decodeEntities(value: string): string {
  return value.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,6});/gi, (whole, body: string) => {
    if (body.startsWith("#")) {
      const code =
        body[1] === "x" || body[1] === "X"
          ? parseInt(body.slice(2), 16)
          : parseInt(body.slice(1), 10);
      return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)
        ? String.fromCodePoint(code)
        : whole;
    }
    return NAMED[body.toLowerCase()] ?? whole;
  });
}
