// Model and tool text is untrusted: whatever it contains must reach the DOM as text only.
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  PermissionDialogView,
  UiDialogView,
  renderDescriptor,
  renderMarkdown,
  safeHttpUrl,
} from "../../labextension/src/render/index";
import { renderToolCard } from "../../labextension/src/widget/tool-card";
import type { ToolItem } from "../../labextension/src/widget/transcript-items";
import { HOSTILE, assertInert, ev } from "./helpers";

const descriptorsWith = (s: string): unknown[] => [
  { kind: "text", text: s, format: "plain" },
  { kind: "text", text: s, format: "markdown" },
  { kind: "text", text: s, format: "code", language: s },
  { kind: "kv", pairs: [{ k: s, v: s }] },
  {
    kind: "diff",
    path: s,
    status: "modified",
    hunks: [
      {
        old_start: 1,
        old_lines: 1,
        new_start: 1,
        new_lines: 1,
        lines: [`+${s}`, `-${s}`],
      },
    ],
  },
  {
    kind: "tree",
    root: {
      label: s,
      is_dir: true,
      children: [{ label: s, is_dir: false, children: [] }],
    },
  },
  { kind: "progress", label: s, current: 1, total: 2 },
  { kind: "status", label: s, tone: "error" },
  { kind: s, text: s },
];

describe.each(HOSTILE)("hostile text %s", (hostile) => {
  it("stays text in every descriptor kind", () => {
    for (const descriptor of descriptorsWith(hostile)) {
      const el = renderDescriptor(descriptor);
      assertInert(el);
      if (el.classList.contains("shard-render-unknown")) {
        expect(el.textContent).toContain(JSON.stringify(hostile));
      } else if (!JSON.stringify(descriptor).includes('"markdown"')) {
        expect(el.textContent).toContain(hostile);
      }
    }
  });

  it("stays text in markdown", () => {
    const el = renderMarkdown(
      `Intro ${hostile}\n\n${hostile}\n\n> ${hostile}\n\n- ${hostile}\n\n| a |\n|---|\n| ${hostile} |`,
    );
    assertInert(el);
  });

  it("stays text in the permission dialog", () => {
    const request = ev("permission_request", {
      request_id: "r1",
      tool: hostile,
      input: { command: hostile, [hostile]: 1 },
      prompt: hostile,
      suggested_rule: hostile,
      read_only: false,
      tool_call_id: null,
      turn_id: null,
    });
    const view = new PermissionDialogView(request as never, () => undefined);
    assertInert(view.el);
    expect(view.el.querySelector(".shard-tool-name")?.textContent).toBe(
      hostile,
    );
    expect(
      view.el.querySelector<HTMLInputElement>(".shard-rule-input")?.value,
    ).toBe(hostile);
    expect(
      view.el.querySelector(".shard-permission-input")?.textContent,
    ).toContain(JSON.stringify(hostile).slice(1, -1));
    view.setResolved({
      ...ev("permission_resolved"),
      request_id: "r1",
      decision: "deny",
      decided_by: hostile,
      source: "client",
      reason: hostile,
      rule: hostile,
    } as never);
    assertInert(view.el);
    expect(view.el.textContent).toContain(hostile);
  });

  it("stays text in ui dialogs", () => {
    for (const ui of ["select", "confirm", "input", "notify"]) {
      const request = ev("ui_request", {
        request_id: "u",
        ui,
        title: hostile,
        message: hostile,
        options: [hostile, "b"],
        default: hostile,
      });
      const view = new UiDialogView(request as never, () => undefined);
      assertInert(view.el);
      expect(view.el.textContent).toContain(hostile);
    }
  });

  it("stays text in a tool card", () => {
    const item: ToolItem = {
      kind: "tool",
      decision: null,
      key: "tool:1",
      sig: "",
      id: "1",
      turnId: "t",
      name: hostile,
      input: { command: hostile },
      inputText: "",
      readOnly: false,
      status: "error",
      result: {
        content: [
          { type: "text", text: hostile },
          {
            type: "image",
            media_type: "image/svg+xml" as "image/png",
            data: "PHN2Zz4=",
          },
        ],
        is_error: true,
        render: [],
        details: {},
      },
    };
    const card = renderToolCard(item);
    assertInert(card);
    expect(card.querySelector(".shard-tool-result")?.textContent).toBe(hostile);
  });
});

describe("links", () => {
  it.each([
    ["javascript:alert(1)", null],
    ["JaVaScRiPt:alert(1)", null],
    [" javascript:alert(1)", null],
    ["java\tscript:alert(1)", null],
    ["data:text/html,<script>alert(1)</script>", null],
    ["vbscript:msgbox", null],
    ["/relative/path", null],
    ["//evil.example/x", null],
    ["file:///etc/passwd", null],
    ["https://example.com/a?b=c", "https://example.com/a?b=c"],
    ["http://example.com", "http://example.com/"],
  ])("%s → %s", (raw, expected) => {
    expect(safeHttpUrl(raw)).toBe(expected);
  });

  it("markdown links keep only http(s) targets, opened without an opener", () => {
    const el = renderMarkdown(
      "[ok](https://example.com) [bad](javascript:alert(1)) <javascript:alert(1)> https://auto.example/x",
    );
    const anchors = [...el.querySelectorAll("a")];
    expect(
      anchors.map((a) => [
        a.getAttribute("href"),
        a.getAttribute("rel"),
        a.getAttribute("target"),
      ]),
    ).toEqual([
      ["https://example.com/", "noopener noreferrer", "_blank"],
      ["https://auto.example/x", "noopener noreferrer", "_blank"],
    ]);
    expect(el.querySelector(".shard-link-blocked")?.textContent).toBe("bad");
    assertInert(el);
  });

  it("markdown images become links and are never loaded", () => {
    const el = renderMarkdown(
      "![secret](https://tracker.example/p.png?leak=1)",
    );
    expect(el.querySelector("img")).toBeNull();
    expect(el.querySelector("a")?.textContent).toBe("[image: secret]");
  });
});

describe("tool images", () => {
  const card = (media_type: string, data: string): HTMLElement =>
    renderToolCard({
      kind: "tool",
      decision: null,
      key: "k",
      sig: "",
      id: "1",
      turnId: "t",
      name: "screenshot",
      input: {},
      inputText: "",
      readOnly: true,
      status: "done",
      result: {
        content: [
          { type: "image", media_type: media_type as "image/png", data },
        ],
        is_error: false,
        render: [],
        details: {},
      },
    });

  it("shows raster base64 images as data URLs", () => {
    expect(
      card("image/png", "iVBORw0KGgo=")
        .querySelector("img")
        ?.getAttribute("src"),
    ).toBe("data:image/png;base64,iVBORw0KGgo=");
  });

  it("refuses other media types and non-base64 data", () => {
    expect(card("image/svg+xml", "PHN2Zz4=").querySelector("img")).toBeNull();
    expect(
      card("image/png", 'x" onerror="alert(1)').querySelector("img"),
    ).toBeNull();
  });
});

describe("sources", () => {
  const src = resolve(process.cwd(), "src"); // vitest runs in labextension/
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
    );

  it("never parse HTML strings", () => {
    const offenders = files(src)
      .filter((f) => f.endsWith(".ts"))
      .filter((f) =>
        /\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write|DOMParser|createContextualFragment|\bsrcdoc\b/.test(
          readFileSync(f, "utf8"),
        ),
      );
    expect(offenders).toEqual([]);
  });

  it("use no `any`", () => {
    const offenders = files(src)
      .filter((f) => f.endsWith(".ts"))
      .filter((f) => /:\s*any\b|<any>|as any\b/.test(readFileSync(f, "utf8")));
    expect(offenders).toEqual([]);
  });
});
