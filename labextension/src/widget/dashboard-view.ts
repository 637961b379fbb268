// The AgentDashboard view: every agent with status, usage and Attach / Kill. Kill asks twice.
import { button, clear, h } from "../render/dom";
import { formatCost, formatTokens } from "../render/format";
import { isFiniteNumber, isRecord, isString } from "../render/guards";
import { treeName, treeOrder, type TreeRow } from "../client/agent-tree";
import type { AgentInfo } from "../wire";
import { nextCommandId } from "./commands";
import { getList, listen, type Cleanup, type RenderProps, type WidgetModel } from "./model";
import { asReply } from "./replies";
import { usageBar, usageTokens } from "./usage-bars";

export type DashboardAction = "attach" | "kill";

function isAgentInfo(value: unknown): value is AgentInfo {
  return (
    isRecord(value) && isString(value["id"]) && isString(value["name"]) && isString(value["status"])
  );
}

function usageText(agent: AgentInfo): string {
  const usage: Readonly<Record<string, unknown>> = isRecord(agent.usage) ? agent.usage : {};
  const n = (key: string): number => (isFiniteNumber(usage[key]) ? usage[key] : 0);
  return `${formatTokens(n("input_tokens"))} in · ${formatTokens(n("output_tokens"))} out · ${formatCost(n("cost_usd"))}`;
}

function row(
  { agent, depth }: TreeRow,
  act: (action: DashboardAction, agentId: string) => void,
  most: number,
): HTMLElement {
  const kill = button(
    "Kill",
    () => {
      if (kill.dataset["armed"] === "1") return act("kill", agent.id);
      kill.dataset["armed"] = "1";
      kill.textContent = "Really kill?";
    },
    "shard-button-danger",
  );
  return h(
    "tr",
    {
      class: `shard-agent-row shard-runtime-${agent.runtime_state}`,
      attrs: { "data-depth": String(depth) },
    },
    h(
      "td",
      null,
      h("div", { class: "shard-agent-name", title: agent.name }, treeName({ agent, depth })),
      agent.title ? h("div", { class: "shard-agent-title" }, agent.title) : null,
      h("div", { class: "shard-agent-id" }, agent.id),
    ),
    h("td", null, `${agent.status.replaceAll("_", " ")} · ${agent.runtime_state}`),
    h("td", null, agent.mode),
    h("td", null, agent.model),
    h("td", { class: "shard-num" }, String(agent.clients)),
    h("td", null, usageText(agent), usageBar(agent.usage, most)),
    h("td", { class: "shard-agent-cwd", title: agent.cwd }, agent.cwd),
    h(
      "td",
      { class: "shard-agent-actions" },
      button("Attach", () => act("attach", agent.id), "shard-button-primary"),
      kill,
    ),
  );
}

function table(
  model: WidgetModel,
  act: (action: DashboardAction, agentId: string) => void,
): HTMLElement {
  const agents = getList(model, "agents").filter(isAgentInfo);
  if (agents.length === 0) return h("div", { class: "shard-empty" }, "No agents.");
  const most = Math.max(0, ...agents.map((a) => usageTokens(a.usage)));
  const head = h(
    "tr",
    null,
    ...["Agent", "Status", "Mode", "Model", "Clients", "Usage", "Directory", ""].map((t) =>
      h("th", null, t),
    ),
  );
  return h(
    "table",
    { class: "shard-dashboard-table" },
    h("thead", null, head),
    h("tbody", null, ...treeOrder(agents).map((r) => row(r, act, most))),
  );
}

export function renderDashboardView({ model, el }: RenderProps): Cleanup {
  const body = h("div", { class: "shard-dashboard-body" });
  const notice = h("div", { class: "shard-command-notice", attrs: { role: "alert" } });
  const sent = new Set<string>();
  const act = (action: DashboardAction, agentId: string): void => {
    const id = nextCommandId();
    sent.add(id);
    model.send({ type: action, agent_id: agentId, id });
  };
  const refresh = (): void => body.replaceChildren(table(model, act));
  const onCustom = (message: unknown): void => {
    const reply = asReply(message);
    if (!reply || (reply.command_id !== null && !sent.has(reply.command_id))) return;
    clear(notice);
    if (!reply.ok) notice.append(`${reply.command}: ${reply.message}`);
  };
  el.replaceChildren(h("div", { class: "shard-widget shard-dashboard" }, body, notice));
  refresh();
  const cleanups = [listen(model, "change:agents", refresh), listen(model, "msg:custom", onCustom)];
  return () => {
    for (const cleanup of cleanups) cleanup();
    el.replaceChildren();
  };
}
