import { describe, expect, it } from "vitest";

import { treeName, treeOrder } from "../../labextension/src/client/agent-tree";
import type { AgentInfo } from "../../labextension/src/wire";

function agent(
  id: string,
  created: number,
  parent: string | null = null,
): AgentInfo {
  return {
    id,
    name: parent ? `${id} (parent)` : id,
    alias: parent ? id.replace("agent-", "").toUpperCase() : null,
    parent_agent_id: parent,
    created,
  } as unknown as AgentInfo;
}

describe("treeOrder", () => {
  it("puts each subagent right after its parent, oldest first, with its depth", () => {
    const agents = [
      agent("agent-p", 1),
      agent("agent-other", 2),
      agent("agent-c1", 3, "agent-p"),
      agent("agent-c2", 4, "agent-p"),
      agent("agent-g1", 5, "agent-c1"),
    ];
    const rows = treeOrder([...agents].reverse());
    expect(rows.map((r) => [r.agent.id, r.depth])).toEqual([
      ["agent-p", 0],
      ["agent-c1", 1],
      ["agent-g1", 2],
      ["agent-c2", 1],
      ["agent-other", 0],
    ]);
    expect(rows.map(treeName)).toEqual([
      "agent-p",
      "↳ C1",
      "  ↳ G1",
      "↳ C2",
      "agent-other",
    ]);
  });

  it("lists a child whose parent is gone, and a damaged parent loop, without losing any", () => {
    const rows = treeOrder([
      agent("agent-orphan", 1, "agent-gone"),
      agent("agent-x", 2, "agent-y"),
      agent("agent-y", 3, "agent-x"),
    ]);
    expect(rows.map((r) => [r.agent.id, r.depth])).toEqual([
      ["agent-orphan", 0],
      ["agent-x", 0],
      ["agent-y", 0],
    ]);
  });
});
