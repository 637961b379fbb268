import { describe, expect, it, vi } from "vitest";

// @lumino/widgets (imported by agents-panel.ts) pulls in @lumino/dragdrop, which reads DragEvent
// at load time; jsdom has none.
vi.hoisted(() => {
  if (!("DragEvent" in globalThis))
    (globalThis as Record<string, unknown>)["DragEvent"] =
      class DragEvent extends MouseEvent {};
});

import { Signal } from "../../labextension/node_modules/@lumino/signaling";
import {
  AgentsPanel,
  type PanelActions,
} from "../../labextension/src/lab/agents-panel";
import type { AgentDirectory } from "../../labextension/src/lab/agent-directory";
import type { AgentInfo } from "../../labextension/src/wire";

function agentInfo(
  id: string,
  created: number,
  extra: Partial<AgentInfo> = {},
): AgentInfo {
  return {
    id,
    name: id,
    cwd: `/srv/${id}`,
    model: "claude-x",
    mode: "build",
    clients: 1,
    clients_by_role: { interactive: 1, observer: 0 },
    created,
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
    diagnostics: [],
    ...extra,
  } as unknown as AgentInfo;
}

function panelWith(list: AgentInfo[]) {
  const changed = new Signal<object, void>({});
  const directory = {
    changed,
    list,
    problem: null,
    watch: () => () => undefined,
    api: {},
  } as unknown as AgentDirectory & { list: AgentInfo[] };
  const killed: AgentInfo[] = [];
  const actions: PanelActions = {
    open: () => undefined,
    kill: async (agent) => void killed.push(agent),
    create: async () => undefined,
    pickFolder: async () => null,
  };
  const panel = new AgentsPanel(directory, "/srv", actions);
  document.body.append(panel.node);
  const update = (next: AgentInfo[]) => {
    (directory as { list: AgentInfo[] }).list = next;
    changed.emit();
  };
  const row = (id: string) =>
    panel.node.querySelector<HTMLElement>(`[data-agent-id="${id}"]`);
  return { panel, update, row, killed };
}

describe("the sidebar's agent rows across updates", () => {
  it("keep their buttons (and the focus on one) while the agent's facts change", () => {
    const { panel, update, row, killed } = panelWith([
      agentInfo("a", 1),
      agentInfo("b", 2),
    ]);
    const kill = row("b")?.querySelector<HTMLButtonElement>(".shard-kill");
    const item = row("b");
    kill?.focus();
    expect(document.activeElement).toBe(kill);
    update([
      agentInfo("a", 1, {
        status: "streaming",
        title: "a long title that adds a line",
      }),
      agentInfo("b", 2, { status: "running_tool", clients: 3 }),
    ]);
    expect(row("b")).toBe(item); // the same element, never detached
    expect(row("b")?.querySelector(".shard-kill")).toBe(kill);
    expect(kill?.isConnected).toBe(true);
    expect(document.activeElement).toBe(kill);
    expect(row("b")?.querySelector(".shard-status-badge")?.textContent).toBe(
      "running a tool",
    );
    expect(
      row("b")?.querySelector(".shard-agent-facts")?.textContent,
    ).toContain("3 clients");
    kill?.click();
    expect(killed.map((a) => a.clients)).toEqual([3]); // the agent as it is now
    panel.dispose();
    panel.node.remove();
  });

  it("relabel Open and disable Kill when stopped, and drop and add rows in order", () => {
    const { panel, update, row } = panelWith([
      agentInfo("a", 1),
      agentInfo("b", 2),
    ]);
    const open = row("a")?.querySelector<HTMLButtonElement>(".shard-open");
    update([
      agentInfo("a", 1, { runtime_state: "stopped" }),
      agentInfo("c", 3),
    ]);
    expect(row("a")?.querySelector(".shard-open")).toBe(open);
    expect(open?.textContent).toBe("Restart & open");
    expect(
      row("a")?.querySelector<HTMLButtonElement>(".shard-kill")?.disabled,
    ).toBe(true);
    expect(row("b")).toBeNull();
    const ids = [
      ...panel.node.querySelectorAll<HTMLElement>(".shard-agent-item"),
    ].map((li) => li.dataset["agentId"]);
    expect(ids).toEqual(["a", "c"]);
    update([]);
    expect(panel.node.querySelector(".shard-empty")?.textContent).toContain(
      "No agents yet",
    );
    panel.dispose();
    panel.node.remove();
  });
});

describe("an agent row's terminals", () => {
  const terminal = (name: string, label: string) => ({
    name,
    label,
    command: "bash -i",
  });

  it("are buttons that open the server terminal, kept while listed, gone when closed", () => {
    const { panel, update, row } = panelWith([
      agentInfo("a", 1, {
        terminals: [terminal("shard_a_t1_0f0f", "dev server")],
      }),
    ]);
    const group = row("a")?.querySelector<HTMLElement>(
      ".shard-agent-terminals",
    );
    expect(group?.hidden).toBe(false);
    expect(group?.getAttribute("aria-label")).toBe("Terminals of a");
    const first = group?.querySelector<HTMLButtonElement>(
      ".shard-agent-terminal",
    );
    expect(first?.textContent).toBe("⌨ dev server");
    expect(first?.getAttribute("aria-label")).toBe(
      "Open terminal dev server in Lab",
    );
    const asked: string[] = [];
    const listener = (event: Event) => {
      asked.push(String((event as CustomEvent<{ name: string }>).detail.name));
      event.preventDefault(); // as the Lab plugin does: it opens Lab's terminal widget
    };
    document.addEventListener("shard:open-terminal", listener);
    update([
      agentInfo("a", 1, {
        status: "streaming",
        terminals: [
          terminal("shard_a_t1_0f0f", "dev server"),
          terminal("shard_a_t2_1a1a", "t2"),
        ],
      }),
    ]);
    const buttons = [
      ...(group?.querySelectorAll<HTMLButtonElement>(".shard-agent-terminal") ??
        []),
    ];
    expect(buttons[0]).toBe(first); // kept across the update
    expect(buttons.map((b) => b.textContent)).toEqual(["⌨ dev server", "⌨ t2"]);
    buttons[1]?.click();
    expect(asked).toEqual(["shard_a_t2_1a1a"]);
    update([
      agentInfo("a", 1, { terminals: [terminal("shard_a_t2_1a1a", "t2")] }),
    ]);
    expect(group?.querySelectorAll(".shard-agent-terminal")).toHaveLength(1);
    expect(first?.isConnected).toBe(false);
    update([agentInfo("a", 1)]); // an older server sends no terminals
    expect(group?.hidden).toBe(true);
    document.removeEventListener("shard:open-terminal", listener);
    panel.dispose();
    panel.node.remove();
  });
});
