import { describe, expect, it } from "vitest";

import {
  WorkflowsSection,
  type WorkflowSource,
} from "../../labextension/src/lab/workflows-section";
import { OrchestratorEvents } from "../../labextension/src/client/orchestrator-events";
import type { WorkflowRun } from "../../labextension/src/client/registry-api";
import type {
  AgentInfo,
  WorkflowUpdatedEvent,
} from "../../labextension/src/wire";

const ASKING: WorkflowRun = {
  id: "wf-1",
  file: "/srv/flows/pick.py",
  state: "running",
  created: 1,
  agent_id: "agent-wf",
  jobs: ["job-1"],
  pending: {
    request_id: "wfask-1",
    n: 2,
    question: "Which next?",
    choices: ["b", "c"],
    allow_other: false,
    multi: false,
  },
  steps: [
    { n: 0, kind: "agent", asked: "look around", result: "first report\nmore" },
    { n: 1, kind: "log", asked: "looked", result: "" },
  ],
};

function source(runs: WorkflowRun[], refuse: string | null = null) {
  const answers: [string, string, readonly string[], string][] = [];
  const api: WorkflowSource = {
    workflows: async () => runs.map(({ steps: _steps, ...summary }) => summary),
    workflow: async (runId) => runs.find((r) => r.id === runId)!,
    answerWorkflow: async (runId, requestId, value, label) => {
      if (refuse) throw new Error(refuse);
      answers.push([runId, requestId, value, label]);
    },
  };
  return { api, answers };
}

/** What the section uses of a Lumino signal. */
class Signal<T> {
  private slots: ((sender: unknown, value: T) => void)[] = [];
  constructor(_sender: unknown) {}
  connect(slot: (sender: unknown, value: T) => void, self: unknown): boolean {
    this.slots.push(slot.bind(self));
    return true;
  }
  disconnect(): boolean {
    this.slots = [];
    return true;
  }
  emit(value: T): void {
    this.slots.forEach((slot) => slot(this, value));
  }
}

type Updates = ConstructorParameters<typeof WorkflowsSection>[2];
type Changes = ConstructorParameters<typeof WorkflowsSection>[3];

const CHILD = {
  id: "agent-step",
  name: "Juniper (workflow pick.py (wf-1))",
  alias: "Juniper",
  title: "look around",
  parent_agent_id: "agent-wf",
  runtime_state: "stopped",
  status: "idle",
} as unknown as AgentInfo;

function section(
  api: WorkflowSource,
  updates = new Signal<WorkflowUpdatedEvent>({}),
) {
  const changed = new Signal<void>({});
  const view = new WorkflowsSection(
    api,
    {
      agents: () => [CHILD],
      badge: () => ({ text: "stopped", tone: "stopped" }),
      label: () => "Tab 1",
    },
    updates as unknown as Updates,
    changed as unknown as Changes,
  );
  return { view, updates };
}

describe("the Lab panel's workflow runs", () => {
  it("draws a run's steps, its agents and its pending question, answered in this tab's name", async () => {
    const { api, answers } = source([ASKING]);
    const { view } = section(api);
    expect(view.el.hidden).toBe(true); // nothing read yet: no section
    await view.refresh();
    expect(view.el.hidden).toBe(false);
    const run = view.el.querySelector("[data-run-id='wf-1']")!;
    expect(run.querySelector(".shard-workflow-name")!.textContent).toBe(
      "pick.py (wf-1)",
    );
    const steps = [...run.querySelectorAll(".shard-workflow-step")].map(
      (s) => s.textContent,
    );
    expect(steps).toEqual(["agentlook around → first report", "loglooked"]);
    expect(run.querySelector(".shard-workflow-agent")!.textContent).toBe(
      "Juniper — look aroundstopped",
    );
    const buttons = [
      ...run.querySelectorAll<HTMLButtonElement>(".shard-ui-question button"),
    ];
    expect(buttons.map((b) => b.textContent)).toEqual(["b", "c"]);
    buttons[1]!.click();
    await Promise.resolve();
    await Promise.resolve();
    expect(answers).toEqual([["wf-1", "wfask-1", ["c"], "Tab 1"]]);
    expect(run.querySelector(".shard-dialog-footer")!.textContent).toBe(
      "Answered: c — by Tab 1",
    );
  });

  it("says why an answer was refused and keeps the question open", async () => {
    const { api } = source(
      [ASKING],
      "the question was already answered by Bea",
    );
    const { view } = section(api);
    await view.refresh();
    view.el
      .querySelector<HTMLButtonElement>(".shard-ui-question button")!
      .click();
    await new Promise((resolve) => setTimeout(resolve, 0));
    const footer = view.el.querySelector(".shard-dialog-footer")!;
    expect(footer.textContent).toBe("the question was already answered by Bea");
    expect(
      view.el.querySelector<HTMLButtonElement>(".shard-ui-question button")!
        .disabled,
    ).toBe(false);
  });

  it("shows an event's state at once and its ended run without the question", async () => {
    const { api } = source([ASKING]);
    const { view, updates } = section(api);
    await view.refresh();
    const { steps: _steps, ...summary } = ASKING;
    updates.emit({
      type: "workflow_updated",
      run_id: "wf-1",
      state: "failed",
      run: {
        ...summary,
        state: "failed",
        pending: null,
        error: "main raised ValueError: x",
      },
      seq: 3,
      ts: 2,
    });
    const run = view.el.querySelector("[data-run-id='wf-1']")!;
    expect(run.querySelector(".shard-badge")!.textContent).toBe("failed");
    expect(run.querySelector(".shard-workflow-error")!.textContent).toBe(
      "main raised ValueError: x",
    );
    expect(run.querySelector(".shard-ui-question")).toBeNull();
    expect(run.querySelectorAll(".shard-workflow-step")).toHaveLength(2); // the steps it had
    view.dispose();
  });

  it("hands workflow_updated events on without touching the agent list", () => {
    const events = new OrchestratorEvents({
      factory: () => ({}) as never,
      base: "ws://x",
    });
    const seen: string[] = [];
    let changed = 0;
    events.workflowUpdated.connect((_, event) => seen.push(event.run_id));
    events.changed.connect(() => (changed += 1));
    events.apply(
      JSON.stringify({
        type: "workflow_updated",
        run_id: "wf-9",
        state: "running",
        run: {},
        seq: 7,
        ts: 1,
      }),
    );
    expect(seen).toEqual(["wf-9"]);
    expect(changed).toBe(0);
    expect(events.position.since).toBe(7);
  });
});
