// Issue 21 in the widget: start-up diagnostics under the header (from the status event, through
// the Lab store and the anywidget model alike), and a skill activation's card.
import { describe, expect, it } from "vitest";
import { AgentStore } from "../../labextension/src/client/agent-store";
import type { CreateAgent } from "../../labextension/src/client/registry-api";
import { renderNewAgentForm } from "../../labextension/src/lab/new-agent-form";
import { renderDiagnostics } from "../../labextension/src/widget/agent-header";
import { renderToolCard } from "../../labextension/src/widget/tool-card";
import type { ToolItem } from "../../labextension/src/widget/transcript-items";
import { HOSTILE, assertInert } from "./helpers";

const SKIPPED =
  "skills: skipped /w/.agents/skills: project skills need --trust-project (KERNEL_SHARD_TRUST_PROJECT=1)";

function status(seq: number, diagnostics?: unknown): Record<string, unknown> {
  return {
    type: "status",
    agent_id: "agent-test",
    seq,
    ts: 1_700_000_000 + seq,
    status: "idle",
    mode: "build",
    model: "claude-x",
    demo: false,
    ...(diagnostics === undefined ? {} : { diagnostics }),
  };
}

describe("diagnostics under the header", () => {
  it("renders one line per diagnostic, as text", () => {
    const el = renderDiagnostics([
      SKIPPED,
      "skipped /w/AGENTS.md: project context needs --trust-project",
    ]);
    expect(el).not.toBeNull();
    expect([...el!.querySelectorAll("li")].map((li) => li.textContent)).toEqual(
      [SKIPPED, "skipped /w/AGENTS.md: project context needs --trust-project"],
    );
    expect(el!.className).toBe("shard-diagnostics");
  });

  it("renders nothing without diagnostics", () => {
    expect(renderDiagnostics([])).toBeNull();
    expect(renderDiagnostics(undefined)).toBeNull();
  });

  it("keeps hostile text inert", () => {
    const el = renderDiagnostics(HOSTILE);
    assertInert(el!);
    expect(el!.querySelectorAll("li")).toHaveLength(HOSTILE.length);
  });

  it("the Lab store takes them from the latest status, never from an older replay", () => {
    const store = new AgentStore("c");
    expect(store.get("diagnostics")).toEqual([]);
    const fired: string[] = [];
    store.on("change:diagnostics", () => fired.push("diagnostics"));
    store.applyLive([status(3, [SKIPPED, 7])]);
    expect(store.get("diagnostics")).toEqual([SKIPPED]); // only strings survive
    expect(fired).toEqual(["diagnostics"]);
    store.applyLive([status(1, [])]); // older: ignored
    expect(store.get("diagnostics")).toEqual([SKIPPED]);
    store.applyLive([status(4)]); // a status without the field: none
    expect(store.get("diagnostics")).toEqual([]);
  });
});

describe("a skill activation's card", () => {
  const item = (name: string): ToolItem => ({
    kind: "tool",
    decision: null,
    key: "tool:1",
    sig: "",
    id: "1",
    turnId: "t",
    name,
    input: { name: "greeting-file" },
    inputText: "",
    readOnly: true,
    status: "done",
    result: {
      content: [
        { type: "text", text: '<skill name="greeting-file">…</skill>' },
      ],
      is_error: false,
      render: [
        {
          kind: "status",
          version: 1,
          label: "skill greeting-file loaded",
          tone: "success",
        },
        {
          kind: "kv",
          version: 1,
          pairs: [{ k: "directory", v: "/w/.agents/skills/greeting-file" }],
        },
        {
          kind: "text",
          version: 1,
          text: "# Greeting file\n\nWrite GREETING.txt",
          format: "markdown",
          language: null,
        },
      ],
      details: {},
    },
  });

  it("is badged as a skill and shows the skill card, not the raw envelope", () => {
    const card = renderToolCard(item("load_skill"));
    expect(card.classList.contains("shard-tool-skill")).toBe(true);
    expect(card.querySelector(".shard-skill-badge")?.textContent).toBe("skill");
    const result = card.querySelector(".shard-tool-result")?.textContent ?? "";
    expect(result).toContain("skill greeting-file loaded");
    expect(result).toContain("/w/.agents/skills/greeting-file");
    expect(card.querySelector(".shard-tool-result h1")?.textContent).toBe(
      "Greeting file",
    );
    expect(result).not.toContain("<skill");
  });

  it("another tool is not badged", () => {
    const card = renderToolCard(item("read"));
    expect(card.classList.contains("shard-tool-skill")).toBe(false);
    expect(card.querySelector(".shard-skill-badge")).toBeNull();
  });
});

describe("the New agent form's definition and skills", () => {
  async function submit(
    fill: (form: HTMLElement) => void,
  ): Promise<CreateAgent[]> {
    const sent: CreateAgent[] = [];
    const form = renderNewAgentForm("/root", {
      pickFolder: () => Promise.resolve(null),
      create: (request) => {
        sent.push(request);
        return Promise.resolve();
      },
      cancel: () => undefined,
    });
    fill(form);
    form.querySelector<HTMLButtonElement>(".shard-create")!.click();
    await Promise.resolve();
    return sent;
  }

  const input = (form: HTMLElement, cls: string): HTMLInputElement =>
    form.querySelector<HTMLInputElement>(`.${cls}`)!;

  it("sends agent and skills, and no mode unless one is chosen", async () => {
    const sent = await submit((form) => {
      input(form, "shard-new-definition").value = " reviewer ";
      input(form, "shard-new-skills").value = "code-review, pdf ,,";
    });
    expect(sent).toEqual([
      {
        cwd: "/root",
        headless_policy: "deny",
        agent: "reviewer",
        skills: ["code-review", "pdf"],
      },
    ]);
  });

  it("sends neither when left empty, and the mode when chosen", async () => {
    const sent = await submit((form) => {
      form.querySelector<HTMLSelectElement>(".shard-new-mode")!.value = "plan";
    });
    expect(sent).toEqual([
      { cwd: "/root", headless_policy: "deny", mode: "plan" },
    ]);
  });
});
