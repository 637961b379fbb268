import { describe, expect, it } from "vitest";
import {
  renderDescriptor,
  renderDescriptors,
} from "../../labextension/src/render/index";

const texts = (root: Element, selector: string): string[] =>
  [...root.querySelectorAll(selector)].map((e) => e.textContent ?? "");

describe("text", () => {
  it("plain text keeps whitespace in a pre", () => {
    const el = renderDescriptor({
      kind: "text",
      version: 1,
      text: "a\n  b",
      format: "plain",
      language: null,
    });
    expect(el.className).toBe("shard-render shard-render-text");
    expect(el.querySelector("pre.shard-text-plain")?.textContent).toBe(
      "a\n  b",
    );
  });

  it("code gets a language class only when the name is safe", () => {
    const ok = renderDescriptor({
      kind: "text",
      text: "x = 1",
      format: "code",
      language: "python",
    });
    expect(ok.querySelector("pre.shard-code > code")?.className).toBe(
      "language-python",
    );
    const odd = renderDescriptor({
      kind: "text",
      text: "x",
      format: "code",
      language: 'py" onload="x',
    });
    expect(odd.querySelector("code")?.className).toBe("");
  });

  it("markdown renders structure", () => {
    const el = renderDescriptor({
      kind: "text",
      text: "# Title\n\n- one\n- **two**",
      format: "markdown",
    });
    expect(el.querySelector(".shard-markdown h1")?.textContent).toBe("Title");
    expect(texts(el, "li")).toEqual(["one", "two"]);
    expect(el.querySelector("li strong")?.textContent).toBe("two");
  });
});

describe("kv", () => {
  it("renders a row per pair", () => {
    const el = renderDescriptor({
      kind: "kv",
      pairs: [
        { k: "path", v: "a.py" },
        { k: "lines", v: "12" },
      ],
    });
    expect(texts(el, "th")).toEqual(["path", "lines"]);
    expect(texts(el, "td")).toEqual(["a.py", "12"]);
  });
});

describe("diff", () => {
  const diff = {
    kind: "diff",
    path: "src/app.py",
    status: "modified",
    hunks: [
      {
        old_start: 1,
        old_lines: 2,
        new_start: 1,
        new_lines: 3,
        lines: [
          " keep",
          "-old",
          "+new",
          "+more",
          "\\ No newline at end of file",
        ],
      },
    ],
  };

  it("has a file header with status, path and counts", () => {
    const el = renderDescriptor(diff);
    expect(el.querySelector(".shard-diff-status")?.textContent).toBe(
      "modified",
    );
    expect(el.querySelector(".shard-diff-path")?.textContent).toBe(
      "src/app.py",
    );
    expect(el.querySelector(".shard-diff-stats")?.textContent).toBe("+2 −1");
  });

  it("colours lines by their prefix", () => {
    const el = renderDescriptor(diff);
    const lines = [...el.querySelectorAll(".shard-diff-line")].map((l) => [
      l.className.split(" ")[1],
      l.textContent,
    ]);
    expect(lines).toEqual([
      ["shard-diff-hunk", "@@ -1,2 +1,3 @@"],
      ["shard-diff-ctx", " keep"],
      ["shard-diff-del", "-old"],
      ["shard-diff-add", "+new"],
      ["shard-diff-add", "+more"],
      ["shard-diff-meta", "\\ No newline at end of file"],
    ]);
  });

  it("shows created and deleted files", () => {
    const el = renderDescriptor({ ...diff, status: "created" });
    expect(el.querySelector(".shard-diff-created")?.textContent).toBe(
      "created",
    );
  });
});

describe("tree", () => {
  const tree = {
    kind: "tree",
    root: {
      label: "repo",
      is_dir: true,
      children: [
        {
          label: "src",
          is_dir: true,
          children: [
            {
              label: "deep",
              is_dir: true,
              children: [{ label: "x.py", is_dir: false, children: [] }],
            },
          ],
        },
        { label: "README.md", is_dir: false, children: [] },
      ],
    },
  };

  it("nests collapsible nodes; top levels open, deeper ones closed", () => {
    const el = renderDescriptor(tree);
    const details = [...el.querySelectorAll("details")];
    expect(
      details.map((d) => [d.querySelector("summary")?.textContent, d.open]),
    ).toEqual([
      ["repo", true],
      ["src", true],
      ["deep", false],
    ]);
    expect(texts(el, ".shard-tree-leaf")).toEqual(["x.py", "README.md"]);
    expect(el.querySelectorAll(".shard-tree-dir")).toHaveLength(3);
  });
});

describe("progress", () => {
  it("shows a bar with label and percentage", () => {
    const el = renderDescriptor({
      kind: "progress",
      label: "indexing",
      current: 3,
      total: 4,
    });
    const bar = el.querySelector("progress");
    expect(bar?.max).toBe(4);
    expect(bar?.value).toBe(3);
    expect(el.querySelector(".shard-progress-label")?.textContent).toBe(
      "indexing",
    );
    expect(el.querySelector(".shard-progress-figures")?.textContent).toBe(
      "3 / 4 (75%)",
    );
  });

  it("is indeterminate without a total", () => {
    const el = renderDescriptor({
      kind: "progress",
      label: "scanning",
      current: 12,
      total: null,
    });
    expect(el.querySelector("progress")?.hasAttribute("value")).toBe(false);
    expect(el.querySelector(".shard-progress-figures")?.textContent).toBe("12");
  });
});

describe("status", () => {
  it.each([
    ["info", "ℹ", "status"],
    ["warn", "⚠", "status"],
    ["error", "✖", "alert"],
    ["success", "✔", "status"],
  ])("tone %s", (tone, icon, role) => {
    const el = renderDescriptor({ kind: "status", label: "done", tone });
    const line = el.querySelector(".shard-status");
    expect(line?.classList.contains(`shard-tone-${tone}`)).toBe(true);
    expect(line?.getAttribute("role")).toBe(role);
    expect(line?.textContent).toBe(`${icon}done`);
  });
});

describe("fallback", () => {
  it("unknown kinds show their JSON as text", () => {
    const el = renderDescriptor({ kind: "chart", version: 2, points: [1, 2] });
    expect(el.className).toBe("shard-render shard-render-unknown");
    expect(
      JSON.parse(el.querySelector("pre.shard-fallback")?.textContent ?? ""),
    ).toEqual({ kind: "chart", version: 2, points: [1, 2] });
  });

  it.each([
    ["text without text", { kind: "text", format: "plain" }],
    ["kv with a number", { kind: "kv", pairs: [{ k: "a", v: 1 }] }],
    ["diff without hunks", { kind: "diff", path: "a" }],
    ["progress with a string", { kind: "progress", label: "x", current: "3" }],
    ["status with an odd tone", { kind: "status", label: "x", tone: "blink" }],
    ["a string", "just text"],
    ["null", null],
    ["kind is a prototype key", { kind: "constructor" }],
  ])("malformed input (%s) falls back", (_name, value) => {
    const el = renderDescriptor(value);
    expect(el.classList.contains("shard-render-unknown")).toBe(true);
    expect(el.querySelector("pre.shard-fallback")).not.toBeNull();
  });

  it("renders a list in order", () => {
    const el = renderDescriptors([
      { kind: "status", label: "a" },
      { kind: "kv", pairs: [] },
    ]);
    expect([...el.children].map((c) => c.className)).toEqual([
      "shard-render shard-render-status",
      "shard-render shard-render-kv",
    ]);
  });
});
