import { describe, expect, it } from "vitest";
import { renderMarkdown } from "../../labextension/src/render/index";
import { decodeEntities } from "../../labextension/src/render/markdown";

const tags = (root: Element): string[] =>
  [...root.querySelectorAll("*")].map((e) => e.tagName.toLowerCase());

describe("markdown", () => {
  it("renders blocks and inline styles as elements", () => {
    const el = renderMarkdown(
      "## Plan\n\nUse `grep` and **then** *edit* ~~not~~.\n\n1. first\n2. second\n\n---\n\n> quoted",
    );
    expect(tags(el)).toEqual([
      "h2",
      "p",
      "code",
      "strong",
      "em",
      "del",
      "ol",
      "li",
      "li",
      "hr",
      "blockquote",
      "p",
    ]);
    expect(el.querySelector("code")?.textContent).toBe("grep");
  });

  it("code blocks keep their text and a safe language class", () => {
    const el = renderMarkdown("```python\nif a < b:\n    pass\n```");
    const code = el.querySelector("pre.shard-code > code");
    expect(code?.textContent).toBe("if a < b:\n    pass");
    expect(code?.className).toBe("language-python");
  });

  it("raw HTML shows as its source text", () => {
    const el = renderMarkdown("<div onclick=x>hi</div>\n\ntext <b>bold</b>");
    expect(el.querySelector("div, b")).toBeNull();
    expect(el.textContent).toContain("<div onclick=x>hi</div>");
    expect(el.textContent).toContain("text <b>bold</b>");
  });

  it("nested lists stay lists", () => {
    const el = renderMarkdown("- outer\n  - inner **b**\n- next");
    expect(tags(el)).toEqual(["ul", "li", "ul", "li", "strong", "li"]);
    expect(el.querySelector("ul ul li")?.textContent).toBe("inner b");
  });

  it("tables", () => {
    const el = renderMarkdown("| a | b |\n|---|---|\n| 1 | **2** |");
    expect([...el.querySelectorAll("th")].map((c) => c.textContent)).toEqual([
      "a",
      "b",
    ]);
    expect(el.querySelector("td strong")?.textContent).toBe("2");
  });

  it("task lists show check marks as text", () => {
    const el = renderMarkdown("- [x] done\n- [ ] todo");
    expect([...el.querySelectorAll("li")].map((li) => li.textContent)).toEqual([
      "☑ done",
      "☐ todo",
    ]);
    expect(el.querySelector("input")).toBeNull();
  });

  it("entities decode to characters, as text", () => {
    expect(
      decodeEntities("&lt;b&gt; &amp; &#39;x&#39; &#x263A; &bogus; &#0;"),
    ).toBe("<b> & 'x' ☺ &bogus; &#0;");
    const el = renderMarkdown("a &lt;script&gt; b");
    expect(el.textContent).toBe("a <script> b");
    expect(el.querySelector("script")).toBeNull();
  });

  it("deep nesting does not overflow the stack", () => {
    const el = renderMarkdown(`${"> ".repeat(200)}deep`);
    expect(el.textContent).toContain("deep");
  });
});
