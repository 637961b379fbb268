// Subagents under their parents: the agent list in tree order, each agent with its depth.
import type { AgentInfo } from "../wire";

export interface TreeRow {
  agent: AgentInfo;
  depth: number;
}

/** Oldest first, each subagent right after its parent (a child whose parent is not in the
 * list is a root; a damaged parent loop is listed at the end, flat). */
export function treeOrder(agents: readonly AgentInfo[]): TreeRow[] {
  const ids = new Set(agents.map((a) => a.id));
  const byAge = [...agents].sort((a, b) => a.created - b.created);
  const children = new Map<string | null, AgentInfo[]>();
  for (const agent of byAge) {
    const parent = agent.parent_agent_id ?? null;
    const key = parent !== null && ids.has(parent) ? parent : null;
    children.set(key, [...(children.get(key) ?? []), agent]);
  }
  const rows: TreeRow[] = [];
  const seen = new Set<string>();
  const stack: TreeRow[] = [...(children.get(null) ?? [])]
    .reverse()
    .map((agent) => ({ agent, depth: 0 }));
  while (stack.length > 0) {
    const row = stack.pop() as TreeRow;
    if (seen.has(row.agent.id)) continue;
    seen.add(row.agent.id);
    rows.push(row);
    const kids = [...(children.get(row.agent.id) ?? [])].reverse();
    stack.push(...kids.map((agent) => ({ agent, depth: row.depth + 1 })));
  }
  for (const agent of byAge) if (!seen.has(agent.id)) rows.push({ agent, depth: 0 });
  return rows;
}

/** How a subagent's name reads in a list: "↳ Juniper" under its parent. */
export function treeName(row: TreeRow): string {
  const name = row.agent.name || row.agent.id;
  return row.depth > 0 ? `${"  ".repeat(row.depth - 1)}↳ ${row.agent.alias ?? name}` : name;
}
