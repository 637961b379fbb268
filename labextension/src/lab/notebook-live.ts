// The live strip above a Shard notebook's cells: what its agent is doing now when this tab did
// not start it. A second tab or browser on the same notebook shares the kernel but, without
// real-time collaboration, none of the first tab's outputs; the strip renders the running turn
// from the agent itself (the kernel's attached store): the prompt, the replies, the tool cards,
// the pending permission prompts with working buttons, Stop. It shows while the agent is busy or
// asks something this notebook does not already show, and hides when the turn ends.
import type { NotebookPanel } from "@jupyterlab/notebook";
import { Widget } from "@lumino/widgets";
import { h } from "../render/dom";
import { isRecord } from "../render/guards";
import type { AgentStore } from "../client/agent-store";
import { isBusy } from "../widget/agent-header";
import { renderAgentView } from "../widget/agent-view";
import type { Listener, WidgetModel } from "../widget/model";
import { kernelAgents, SHARD_KERNEL } from "./kernel-agents";

/** The events of the newest turn (from its turn_start on). */
export function currentTurn(events: readonly unknown[]): unknown[] {
  for (let i = events.length - 1; i >= 0; i -= 1) {
    const e = events[i];
    if (isRecord(e) && e["type"] === "turn_start") return events.slice(i);
  }
  return [];
}

/** The store seen through the running turn only: the strip is not the whole history. */
class CurrentTurnModel implements WidgetModel {
  constructor(private readonly store: AgentStore) {}

  get(key: string): unknown {
    const value = this.store.get(key);
    return key === "events" && Array.isArray(value) ? currentTurn(value) : value;
  }

  set(key: string, value: unknown): void {
    this.store.set(key, value);
  }

  on(event: string, callback: Listener): void {
    this.store.on(event, callback);
  }

  off(event?: string | null, callback?: Listener | null): void {
    this.store.off(event, callback);
  }

  send(content: object): void {
    this.store.send(content);
  }
}

export interface LiveState {
  readonly status: string;
  readonly pending: readonly string[];
  /** a cell of this notebook runs (this tab started the turn: its outputs show it) */
  readonly runsHere: boolean;
  /** request ids this notebook's outputs already show */
  readonly shownHere: ReadonlySet<string>;
}

/** Whether the strip shows: the agent works or asks, and this tab's cells do not show it. */
export function showsLive(state: LiveState): boolean {
  if (state.runsHere) return false;
  const unshown = state.pending.filter((id) => !state.shownHere.has(id));
  if (unshown.length > 0) return true;
  return state.pending.length === 0 && isBusy(state.status);
}

export class NotebookLive extends Widget {
  private stop: (() => void) | null = null;
  private store: AgentStore | null = null;
  private readonly body: HTMLElement;
  /** the prompts this strip already brought into view (a person may scroll away from them) */
  private readonly revealed = new Set<string>();

  constructor(private readonly panel: NotebookPanel) {
    super();
    this.addClass("shard-notebook-live");
    this.addClass("shard-widget");
    this.body = h("div", { class: "shard-live-body" });
    this.node.append(
      h(
        "div",
        { class: "shard-live-title" },
        "Live from this notebook's agent (started in another tab; its cells fill in there)",
      ),
      this.body,
    );
    this.node.setAttribute("role", "region");
    this.node.setAttribute("aria-label", "Live from this notebook's agent");
    this.hide();
    panel.sessionContext.kernelChanged.connect(this.follow, this);
    void panel.sessionContext.ready.then(() => this.follow());
    this.follow();
  }

  override dispose(): void {
    if (this.isDisposed) return;
    this.panel.sessionContext.kernelChanged.disconnect(this.follow, this);
    this.unfollow();
    super.dispose();
  }

  private follow(): void {
    if (this.isDisposed) return;
    const kernel = this.panel.sessionContext.session?.kernel ?? null;
    const store =
      kernel && kernel.name === SHARD_KERNEL ? kernelAgents.forKernel(kernel).store : null;
    if (store === this.store) return;
    this.unfollow();
    this.store = store;
    if (store === null) return this.hide();
    const cleanup = renderAgentView(
      { model: new CurrentTurnModel(store), el: this.body },
      {
        composer: false,
      },
    );
    const update = (): void => this.refresh(store);
    const keys = ["change:status", "change:pending", "change:events"];
    for (const key of keys) store.on(key, update);
    const cells = this.panel.content.model?.cells;
    cells?.changed.connect(update);
    this.stop = () => {
      for (const key of keys) store.off(key, update);
      cells?.changed.disconnect(update);
      cleanup();
    };
    update();
  }

  private unfollow(): void {
    this.stop?.();
    this.stop = null;
    this.store = null;
  }

  private refresh(store: AgentStore): void {
    const pending = (store.get("pending") as readonly unknown[])
      .filter(isRecord)
      .map((p) => String(p["request_id"] ?? ""));
    const shownHere = new Set(
      [...this.panel.content.node.querySelectorAll<HTMLElement>("[data-shard-request]")].map(
        (node) => node.dataset["shardRequest"] ?? "",
      ),
    );
    // a code cell's model says "running" while this tab's execute request is out (Lab 4.1+)
    const runsHere = this.panel.content.widgets.some(
      (cell) => (cell.model as { executionState?: unknown }).executionState === "running",
    );
    const status = String(store.get("status") ?? "");
    const live = showsLive({ status, pending, runsHere, shownHere });
    this.setHidden(!live);
    const fresh = live ? pending.filter((id) => !this.revealed.has(id)) : [];
    for (const id of fresh) this.revealed.add(id);
    if (fresh.length > 0) requestAnimationFrame(() => this.revealActions());
  }

  /** Scrolls the strip so the newest prompt's buttons are whole in view: focusing Allow once
   * brings only the prompt's nearest edge in, and a prompt with a diff is taller than the strip
   * (its Deny and Always allow were below the strip's edge). */
  private revealActions(): void {
    if (this.isDisposed || this.isHidden) return;
    const rows = this.body.querySelectorAll<HTMLElement>(".shard-permission .shard-dialog-actions");
    const actions = rows[rows.length - 1];
    if (actions === undefined) return;
    const box = this.node.getBoundingClientRect();
    const row = actions.getBoundingClientRect();
    const margin = 8;
    if (row.bottom + margin > box.bottom) this.node.scrollTop += row.bottom + margin - box.bottom;
    else if (row.top - margin < box.top) this.node.scrollTop -= box.top - (row.top - margin);
  }
}

/** Adds the live strip to a notebook panel (every notebook: it shows only for Shard kernels). */
export function addLiveStrip(panel: NotebookPanel): void {
  const live = new NotebookLive(panel);
  panel.contentHeader.insertWidget(0, live);
  panel.disposed.connect(() => live.dispose());
}
