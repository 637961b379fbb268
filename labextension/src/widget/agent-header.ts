// The header: what the agent is doing in words ("running bash · 0:12", "waiting for
// permission"), model, demo badge, the mode switch and Stop.
import { button, h } from "../render/dom";
import { shortModel } from "../render/format";
import { isFiniteNumber, isRecord, isString } from "../render/guards";

export interface Activity {
  /** "running bash", "thinking" */
  readonly label: string;
  /** epoch seconds it started */
  readonly since: number;
}

export interface HeaderState {
  readonly status: string;
  readonly activity?: Activity | null;
  readonly model: string;
  readonly demo: boolean;
  readonly mode: string;
  readonly modes: readonly string[];
  /** What the agent left out or could not load at start, one line each (status `diagnostics`). */
  readonly diagnostics?: readonly string[];
  /** The session's active goal (status `goal`), "" when none is set. */
  readonly goal?: string;
}

export interface HeaderActions {
  readonly abort: () => void;
  readonly setMode: (mode: string) => void;
}

const BUSY = new Set(["streaming", "waiting_for_permission", "running_tool"]);

export function isBusy(status: string): boolean {
  return BUSY.has(status);
}

/** The open turn's latest step: the tool that runs (no result yet), else the model answering. */
export function currentActivity(events: readonly unknown[]): Activity | null {
  const finished = new Set<string>();
  for (let i = events.length - 1; i >= 0; i -= 1) {
    const e = events[i];
    if (!isRecord(e) || !isFiniteNumber(e["ts"])) continue;
    const type = e["type"];
    if (type === "turn_end") return null;
    if (type === "tool_result" && isString(e["tool_call_id"])) finished.add(e["tool_call_id"]);
    if (type === "tool_call" && isRecord(e["call"])) {
      const call = e["call"];
      if (isString(call["id"]) && !finished.has(call["id"]))
        return {
          label: `running ${isString(call["name"]) ? call["name"] : "a tool"}`,
          since: e["ts"],
        };
    }
    if (type === "turn_start") return { label: "thinking", since: e["ts"] };
    if (type === "tool_result" || type === "message_complete")
      return { label: "thinking", since: e["ts"] };
  }
  return null;
}

export function formatElapsed(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function statusText(state: HeaderState, now: number): string {
  const status = state.status || "idle";
  if (status === "waiting_for_permission") return "waiting for permission";
  if (isBusy(status) && state.activity)
    return `${state.activity.label} · ${formatElapsed(now - state.activity.since)}`;
  return status.replaceAll("_", " ");
}

/** The session's goal under the header ("Goal: ..."); null when none is active. */
export function renderGoal(goal: string | undefined): HTMLElement | null {
  if (!goal) return null;
  return h(
    "div",
    { class: "shard-goal", title: goal, attrs: { "aria-label": "the session's goal" } },
    h("span", { class: "shard-goal-label" }, "Goal"),
    h("span", { class: "shard-goal-text" }, goal),
  );
}

const TODO_MARKS: Record<string, string> = { done: "☑", in_progress: "◐", pending: "☐" };

/** The agent's todo list pinned under the header (todo_write, or plan mode's plan): one row a
 * item with its state; null when there is none. */
export function renderTodos(items: readonly unknown[] | undefined): HTMLElement | null {
  const rows = (items ?? []).filter(isRecord).filter((i) => isString(i["content"]));
  if (rows.length === 0) return null;
  const done = rows.filter((i) => i["status"] === "done").length;
  return h(
    "details",
    { class: "shard-todos", attrs: { open: "", "aria-label": "the agent's todo list" } },
    h("summary", { class: "shard-todos-summary" }, `Todo ${done}/${rows.length}`),
    h(
      "ul",
      { class: "shard-todo-list" },
      ...rows.map((item) => {
        const status = isString(item["status"]) ? item["status"] : "pending";
        return h(
          "li",
          { class: `shard-todo shard-todo-${status}`, attrs: { "data-status": status } },
          h(
            "span",
            { class: "shard-todo-mark", attrs: { "aria-hidden": "true" } },
            TODO_MARKS[status] ?? "☐",
          ),
          h("span", { class: "shard-todo-text" }, String(item["content"])),
        );
      }),
    ),
  );
}

/** The start-up notes under the header (e.g. a project skill skipped without
 * --trust-project), one line each; null when there are none. */
export function renderDiagnostics(lines: readonly string[] | undefined): HTMLElement | null {
  if (!lines || lines.length === 0) return null;
  return h(
    "ul",
    { class: "shard-diagnostics", attrs: { "aria-label": "notes from the agent's start" } },
    ...lines.map((line) => h("li", { class: "shard-diagnostic" }, line)),
  );
}

export function renderHeader(
  state: HeaderState,
  actions: HeaderActions,
  now: number = Date.now() / 1000,
): HTMLElement {
  const modes =
    state.modes.includes(state.mode) || !state.mode ? state.modes : [...state.modes, state.mode];
  const switcher = h("span", {
    class: "shard-modes",
    attrs: { role: "group", "aria-label": "mode" },
  });
  for (const mode of modes) {
    const current = mode === state.mode;
    const b = button(
      mode,
      () => actions.setMode(mode),
      current ? "shard-mode shard-mode-current" : "shard-mode",
    );
    b.setAttribute("aria-pressed", String(current));
    b.disabled = current;
    switcher.appendChild(b);
  }
  const status = state.status || "idle";
  const tone = isBusy(status)
    ? "busy"
    : status === "error"
      ? "error"
      : status === "stopped"
        ? "stopped"
        : "idle";
  return h(
    "div",
    { class: "shard-header" },
    h("span", { class: `shard-dot shard-dot-${tone}`, attrs: { "aria-hidden": "true" } }),
    h("span", { class: "shard-status-text" }, statusText(state, now)),
    state.model
      ? h("span", { class: "shard-model", title: state.model }, shortModel(state.model))
      : null,
    state.demo
      ? h(
          "span",
          {
            class: "shard-badge shard-demo",
            title: "answers come from the scripted demo provider",
          },
          "demo",
        )
      : null,
    h("span", { class: "shard-spacer" }),
    switcher,
    isBusy(status) ? button("Stop", actions.abort, "shard-button-danger shard-abort") : null,
  );
}
