import { describe, expect, it, vi } from "vitest";

// @lumino/widgets (imported by agents-panel.ts) pulls in @lumino/dragdrop, which reads DragEvent
// at load time; jsdom has none.
vi.hoisted(() => {
  if (!("DragEvent" in globalThis))
    (globalThis as Record<string, unknown>)["DragEvent"] =
      class DragEvent extends MouseEvent {};
});

import {
  AgentsPanel,
  renderAgentDiagnostics,
  type PanelActions,
} from "../../labextension/src/lab/agents-panel";
import type { AgentDirectory } from "../../labextension/src/lab/agent-directory";
import type { AgentInfo } from "../../labextension/src/wire";

const SKIPPED = [
  "project skill 'deploy' (.shard/skills/deploy) skipped: run with --trust-project to load it",
  "project rules .shard/rules/allow.json: allow rules dropped without --trust-project",
];

function agentInfo(id: string, diagnostics: string[]): AgentInfo {
  return {
    id,
    name: id,
    cwd: `/srv/${id}`,
    model: "claude-x",
    mode: "build",
    clients: 1,
    clients_by_role: { interactive: 1, observer: 0 },
    created: 1_700_000_000,
    error: null,
    headless_policy: "deny",
    kernel_id: `k-${id}`,
    notebook: null,
    runtime_state: "running",
    status: "idle",
    usage: {
      input_tokens: 0,
      output_tokens: 0,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      cost_usd: 0,
    },
    diagnostics,
  } as unknown as AgentInfo;
}

describe("an agent row's start diagnostics", () => {
  it("is a warning line with the count, every line in the tooltip and the list", () => {
    const node = renderAgentDiagnostics(agentInfo("a1", SKIPPED));
    expect(node).not.toBeNull();
    expect(node?.querySelector("summary")?.textContent).toBe("⚠ 2 start notes");
    expect(node?.title).toBe(SKIPPED.join("\n"));
    const lines = [...(node?.querySelectorAll(".shard-diagnostic") ?? [])].map(
      (li) => li.textContent,
    );
    expect(lines).toEqual(SKIPPED);
    expect(node?.textContent).toContain("--trust-project");
  });

  it("is nothing when the agent had nothing to say (or an old server sent no field)", () => {
    expect(renderAgentDiagnostics(agentInfo("a1", []))).toBeNull();
    const old = {
      ...agentInfo("a2", []),
      diagnostics: undefined,
    } as unknown as AgentInfo;
    expect(renderAgentDiagnostics(old)).toBeNull();
    expect(
      renderAgentDiagnostics(agentInfo("a3", [SKIPPED[0]!]))?.textContent,
    ).toContain("1 start note");
  });

  it("shows in the panel on the row of the agent that has them, and only there", () => {
    const directory = {
      changed: { connect: () => true, disconnect: () => true },
      list: [agentInfo("trusted", []), agentInfo("untrusted", SKIPPED)],
      problem: null,
      watch: () => () => undefined,
      api: {},
    } as unknown as AgentDirectory;
    const actions: PanelActions = {
      open: () => undefined,
      kill: async () => undefined,
      create: async () => undefined,
      pickFolder: async () => null,
    };
    const panel = new AgentsPanel(directory, "/srv", actions);
    const row = (id: string) =>
      panel.node.querySelector(`[data-agent-id="${id}"]`);
    expect(
      row("trusted")?.querySelector(".shard-agent-diagnostics"),
    ).toBeNull();
    const notes = row("untrusted")?.querySelector(".shard-agent-diagnostics");
    expect(notes?.querySelector("summary")?.textContent).toBe(
      "⚠ 2 start notes",
    );
    expect(notes?.querySelectorAll(".shard-diagnostic")).toHaveLength(2);
    panel.dispose();
  });
});
