// Issue 42 in the widget and Lab: the active goal under the header (from the status event,
// through the Lab store), goal_update events as transcript notices, and the New agent form's goal.
import { describe, expect, it } from "vitest";
import { AgentStore } from "../../labextension/src/client/agent-store";
import type { CreateAgent } from "../../labextension/src/client/registry-api";
import { renderNewAgentForm } from "../../labextension/src/lab/new-agent-form";
import {
  renderGoal,
  renderTodos,
} from "../../labextension/src/widget/agent-header";
import {
  deriveItems,
  goalLine,
} from "../../labextension/src/widget/transcript-items";
import type { GoalUpdateEvent } from "../../labextension/src/wire";
import { HOSTILE, assertInert } from "./helpers";

const GOAL = "make every test in tests/ pass";

function status(seq: number, goal?: string | null): Record<string, unknown> {
  return {
    type: "status",
    agent_id: "agent-test",
    seq,
    ts: 1_700_000_000 + seq,
    status: "idle",
    mode: "build",
    model: "claude-x",
    demo: false,
    ...(goal === undefined ? {} : { goal }),
  };
}

function update(
  seq: number,
  fields: Partial<GoalUpdateEvent>,
): GoalUpdateEvent {
  return {
    type: "goal_update",
    agent_id: "agent-test",
    seq,
    ts: 1_700_000_000 + seq,
    text: GOAL,
    status: "active",
    source: "user",
    action: "set",
    bound: null,
    message: "",
    ...fields,
  };
}

describe("the goal under the header", () => {
  it("renders the goal as text, and nothing without one", () => {
    const el = renderGoal(GOAL);
    expect(el?.className).toBe("shard-goal");
    expect(el?.querySelector(".shard-goal-text")?.textContent).toBe(GOAL);
    expect(renderGoal("")).toBeNull();
    for (const hostile of HOSTILE) assertInert(renderGoal(hostile)!);
  });

  it("the Lab store keeps the newest status' goal", () => {
    const store = new AgentStore("c1");
    const fired: string[] = [];
    store.on("change:goal", () => fired.push("goal"));
    store.applyLive([status(1, GOAL)]);
    expect(store.get("goal")).toBe(GOAL);
    store.applyLive([status(2, null)]);
    expect(store.get("goal")).toBe("");
    store.applyLive([status(0, "an older goal")]); // a replayed older status never wins
    expect(store.get("goal")).toBe("");
    expect(fired).toEqual(["goal", "goal"]);
  });
});

describe("goal_update in the transcript", () => {
  it("says each change in words", () => {
    expect(goalLine(update(1, {}))).toBe(`Goal set: ${GOAL}`);
    expect(
      goalLine(
        update(2, { action: "continued", message: "turn 2 of at most 3" }),
      ),
    ).toBe("Going on toward the goal (turn 2 of at most 3).");
    const stopped = update(3, {
      action: "stopped",
      bound: "turns",
      message: "stopped: 3 turns ran; goal.max_turns is 3",
    });
    expect(goalLine(stopped)).toBe(
      "Goal not met: stopped: 3 turns ran; goal.max_turns is 3.",
    );
    const met = update(4, {
      action: "done",
      status: "done",
      source: "model",
      message: "all pass",
    });
    expect(goalLine(met)).toBe(
      `Goal met, the agent reports: ${GOAL} (all pass)`,
    );
    expect(
      goalLine(update(5, { action: "cleared", status: "cleared", text: null })),
    ).toBe("Goal cleared.");
  });

  it("is a notice item, a warning when the agent stopped", () => {
    const events = [
      update(1, {}),
      update(2, {
        action: "stopped",
        bound: "time",
        message: "stopped: 90 s passed",
      }),
    ];
    const notices = deriveItems(events, { permissions: [], ui: [] }).filter(
      (i) => i.kind === "notice",
    );
    expect(
      notices.map((n) => (n.kind === "notice" ? [n.tone, n.text] : null)),
    ).toEqual([
      ["info", `Goal set: ${GOAL}`],
      ["warn", "Goal not met: stopped: 90 s passed."],
    ]);
  });
});

describe("the New agent form's goal", () => {
  it("sends the goal when one is written", async () => {
    const sent: CreateAgent[] = [];
    const form = renderNewAgentForm("/root", {
      pickFolder: () => Promise.resolve(null),
      create: (request) => {
        sent.push(request);
        return Promise.resolve();
      },
      cancel: () => undefined,
    });
    form.querySelector<HTMLInputElement>(".shard-new-goal")!.value =
      `  ${GOAL} `;
    form.querySelector<HTMLButtonElement>(".shard-create")!.click();
    await Promise.resolve();
    expect(sent).toEqual([
      { cwd: "/root", headless_policy: "deny", goal: GOAL },
    ]);
  });
});

describe("the todo list pinned under the header", () => {
  const items = [
    { id: "1", content: "read calc.py", status: "done" },
    { id: "2", content: "fix add", status: "in_progress" },
    { id: "3", content: "run the tests", status: "pending" },
  ];

  it("renders each item with its state, and the count done", () => {
    const el = renderTodos(items)!;
    expect(el.querySelector(".shard-todos-summary")?.textContent).toBe(
      "Todo 1/3",
    );
    const rows = [...el.querySelectorAll(".shard-todo")];
    expect(
      rows.map((r) => [
        r.getAttribute("data-status"),
        r.querySelector(".shard-todo-text")?.textContent,
      ]),
    ).toEqual([
      ["done", "read calc.py"],
      ["in_progress", "fix add"],
      ["pending", "run the tests"],
    ]);
    expect(renderTodos([])).toBeNull();
    assertInert(
      renderTodos(
        HOSTILE.map((content, n) => ({
          id: `${n}`,
          content,
          status: "pending",
        })),
      )!,
    );
  });

  it("the Lab store keeps the newest status' list", () => {
    const store = new AgentStore("c1");
    store.applyLive([{ ...status(1, null), todos: items }]);
    expect(store.get("todos")).toEqual(items);
    store.applyLive([status(2, null)]);
    expect(store.get("todos")).toEqual([]);
  });
});
