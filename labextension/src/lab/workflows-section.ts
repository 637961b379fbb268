// The sidebar's "Workflows": the gateway's workflow runs, newest first, each with its state, its
// steps as they finish (an agent's task and report, a log line, a question and its answer), the
// agents it made (its own agent's children in the agent list, each with its badge), its error
// or result, and a pending `wf.ask` as the dialog the chat shows for ask_user, answered over
// REST in this tab's name (the first answer wins; a later one is told who answered). Read when
// the panel opens and again when the events come back; each `workflow_updated` event re-reads
// its run (with its steps) at most every 200 ms.
import type { ISignal } from "@lumino/signaling";
import { h } from "../render/dom";
import { UiDialogView, type UiValue } from "../render/dialogs/ui-dialog";
import type { AgentInfo, UiRequestEvent, WorkflowUpdatedEvent } from "../wire";
import type { WorkflowAsk, WorkflowRun, WorkflowStep } from "../client/registry-api";

export interface WorkflowSource {
  readonly workflows: () => Promise<WorkflowRun[]>;
  readonly workflow: (runId: string) => Promise<WorkflowRun>;
  readonly answerWorkflow: (
    runId: string,
    requestId: string,
    value: readonly string[],
    label: string,
  ) => Promise<void>;
}

export interface WorkflowParts {
  readonly agents: () => readonly AgentInfo[];
  readonly badge: (agent: AgentInfo) => { text: string; tone: string };
  readonly label: () => string;
}

const SHOWN = 5;
const SOON_MS = 200;
const TONES: Record<WorkflowRun["state"], string> = {
  running: "busy",
  completed: "success",
  failed: "error",
  cancelled: "stopped",
};

function fileName(path: string): string {
  return path.split("/").pop() || path;
}

function firstLine(text: string, most = 120): string {
  const line = text.split("\n")[0] ?? "";
  return line.length > most ? `${line.slice(0, most - 1)}…` : line;
}

function said(step: WorkflowStep): string {
  if (step.kind === "log") return step.asked;
  if (step.kind === "ask") {
    let answer = step.result;
    try {
      const values: unknown = JSON.parse(step.result);
      answer = Array.isArray(values) ? values.join(", ") : "no one answered";
    } catch {
      // a record written by hand: shown as it is
    }
    return `${step.asked} → ${answer}${step.decided_by ? ` (by ${step.decided_by})` : ""}`;
  }
  return `${firstLine(step.asked, 80)} → ${firstLine(step.result)}`;
}

export class WorkflowsSection {
  readonly el: HTMLElement;
  private readonly body: HTMLElement;
  private runs = new Map<string, WorkflowRun>();
  private readonly dialogs = new Map<string, UiDialogView>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private problem: string | null = null;

  constructor(
    private readonly source: WorkflowSource,
    private readonly parts: WorkflowParts,
    private readonly updates: ISignal<unknown, WorkflowUpdatedEvent> | null,
    private readonly agentsChanged: ISignal<unknown, void>,
  ) {
    this.body = h("div", { class: "shard-workflows-body" });
    this.el = h(
      "section",
      { class: "shard-workflows", attrs: { "aria-label": "Workflows" } },
      h("div", { class: "shard-workflows-title" }, "Workflows"),
      this.body,
    );
    this.el.hidden = true;
    updates?.connect(this.onUpdate, this);
    agentsChanged.connect(this.render, this);
  }

  dispose(): void {
    this.updates?.disconnect(this.onUpdate, this);
    this.agentsChanged.disconnect(this.render, this);
    for (const timer of this.timers.values()) clearTimeout(timer);
  }

  /** Reads the newest runs, each with its steps. */
  async refresh(): Promise<void> {
    try {
      const listed = (await this.source.workflows()).slice(0, SHOWN);
      const full = await Promise.all(listed.map((run) => this.source.workflow(run.id)));
      this.runs = new Map(full.map((run) => [run.id, run]));
      this.problem = null;
    } catch (error) {
      this.problem = `Workflows: ${String(error)}`;
    }
    this.render();
  }

  private onUpdate(_: unknown, event: WorkflowUpdatedEvent): void {
    const known = this.runs.get(event.run_id);
    // the event's summary at once (state, pending), the steps when the run is read again
    const summary = event.run as unknown as WorkflowRun;
    this.runs.set(event.run_id, { ...summary, steps: known?.steps ?? [] });
    this.render();
    if (this.timers.has(event.run_id)) return;
    this.timers.set(
      event.run_id,
      setTimeout(() => {
        this.timers.delete(event.run_id);
        void this.reread(event.run_id);
      }, SOON_MS),
    );
  }

  private async reread(runId: string): Promise<void> {
    try {
      this.runs.set(runId, await this.source.workflow(runId));
    } catch {
      return; // the event's summary stays shown
    }
    this.render();
  }

  private render(): void {
    const runs = [...this.runs.values()].sort((a, b) => b.created - a.created).slice(0, SHOWN);
    this.el.hidden = runs.length === 0 && this.problem === null;
    const open = new Set(runs.map((run) => run.pending?.request_id).filter(Boolean));
    for (const id of [...this.dialogs.keys()]) if (!open.has(id)) this.dialogs.delete(id);
    this.body.replaceChildren(
      ...(this.problem ? [h("div", { class: "shard-panel-problem" }, this.problem)] : []),
      ...runs.map((run) => this.renderRun(run)),
    );
  }

  private renderRun(run: WorkflowRun): HTMLElement {
    const name = fileName(run.file);
    const steps = run.steps ?? [];
    const agents = run.agent_id
      ? this.parts.agents().filter((a) => a.parent_agent_id === run.agent_id)
      : [];
    return h(
      "div",
      {
        class: `shard-workflow shard-workflow-${run.state}`,
        attrs: { "data-run-id": run.id, "aria-label": `Workflow ${name} (${run.id})` },
      },
      h(
        "div",
        { class: "shard-workflow-line" },
        h("span", { class: "shard-workflow-name", title: run.file }, `${name} (${run.id})`),
        h("span", { class: `shard-badge shard-tone-${TONES[run.state]}` }, run.state),
      ),
      run.error ? h("div", { class: "shard-panel-problem shard-workflow-error" }, run.error) : null,
      steps.length
        ? h(
            "ol",
            { class: "shard-workflow-steps", attrs: { "aria-label": `Steps of ${name}` } },
            ...steps.map((step) =>
              h(
                "li",
                { class: `shard-workflow-step shard-step-${step.kind}`, title: step.result },
                h("span", { class: "shard-step-kind" }, step.kind),
                h("span", { class: "shard-step-said" }, said(step)),
              ),
            ),
          )
        : null,
      agents.length
        ? h(
            "ul",
            { class: "shard-workflow-agents", attrs: { "aria-label": `Agents of ${name}` } },
            ...agents.map((agent) => {
              const badge = this.parts.badge(agent);
              return h(
                "li",
                { class: "shard-workflow-agent", attrs: { "data-agent-id": agent.id } },
                h(
                  "span",
                  { class: "shard-workflow-agent-name", title: agent.name },
                  [agent.alias ?? agent.name, agent.title].filter(Boolean).join(" — "),
                ),
                h("span", { class: `shard-badge shard-tone-${badge.tone}` }, badge.text),
              );
            }),
          )
        : null,
      run.pending ? this.dialog(run, run.pending).el : null,
      run.state === "completed" && run.result
        ? h("div", { class: "shard-workflow-result" }, firstLine(run.result))
        : null,
    );
  }

  /** The pending question's dialog, kept while it is pending (a re-render keeps its state). */
  private dialog(run: WorkflowRun, ask: WorkflowAsk): UiDialogView {
    const known = this.dialogs.get(ask.request_id);
    if (known) return known;
    const request: UiRequestEvent = {
      type: "ui_request",
      agent_id: run.agent_id ?? "",
      request_id: ask.request_id,
      ui: "question",
      title: ask.question,
      message: `workflow ${fileName(run.file)} asks`,
      options: [...ask.choices],
      multi: ask.multi,
      allow_other: ask.allow_other,
      default: null,
      seq: 0,
      ts: 0,
    };
    const view = new UiDialogView(request, (answer) => void this.answer(run, view, answer.value));
    this.dialogs.set(ask.request_id, view);
    return view;
  }

  private async answer(run: WorkflowRun, view: UiDialogView, value: UiValue): Promise<void> {
    const values = Array.isArray(value) ? value : typeof value === "string" ? [value] : [];
    const label = this.parts.label();
    try {
      await this.source.answerWorkflow(run.id, view.request.request_id, values, label);
    } catch (error) {
      view.setError(error instanceof Error ? error.message : String(error));
      return;
    }
    view.setResolved({
      type: "ui_resolved",
      agent_id: view.request.agent_id,
      request_id: view.request.request_id,
      value: values,
      decided_by: label,
      client_id: null,
      seq: 0,
      ts: 0,
    });
  }
}
