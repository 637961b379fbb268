// The Shard sidebar: every agent the server knows (created here, started from the Launcher, made
// by `%shard new`), each with a live status badge and Open / Kill; and the New agent form.
import { Widget } from "@lumino/widgets";
import { button, h } from "../render/dom";
import { renderDiagnostics } from "../widget/agent-header";
import { renderUsageHistory } from "../widget/usage-bars";
import type { AgentInfo } from "../wire";
import type { AgentDirectory } from "./agent-directory";
import { renderNewAgentForm, type NewAgentActions } from "./new-agent-form";
import type { CreateAgent } from "../client/registry-api";
import { AgentRows } from "./agent-rows";
import { WorkspaceGrantsSection } from "./grants-section";
import { WorkflowsSection } from "./workflows-section";

export interface PanelActions {
  readonly open: (agent: AgentInfo) => void;
  readonly kill: (agent: AgentInfo) => Promise<void>;
  readonly create: (request: CreateAgent) => Promise<void>;
  readonly pickFolder: () => Promise<string | null>;
  /** who answers a workflow's question from this panel ("alice · Tab 3f2a") */
  readonly label?: () => string;
}

/** The badge a person reads: what the agent is doing, or why it is not running. */
export function badgeOf(agent: AgentInfo): { text: string; tone: string } {
  if (agent.runtime_state === "stopped") return { text: "stopped", tone: "stopped" };
  if (agent.runtime_state === "failed") return { text: "error", tone: "error" };
  if (agent.runtime_state === "starting") return { text: "starting", tone: "busy" };
  const status = String(agent.status);
  const words: Record<string, string> = {
    idle: "idle",
    streaming: "streaming",
    running_tool: "running a tool",
    waiting_for_permission: "waiting for permission",
    error: "error",
  };
  const tone =
    status === "idle"
      ? "idle"
      : status === "error"
        ? "error"
        : status === "waiting_for_permission"
          ? "warn"
          : "busy";
  return { text: words[status] ?? status.replaceAll("_", " "), tone };
}

/** A folder under the server's root as the file browser shows it ("/" is the root). */
export function shortPath(path: string, root: string): string {
  const base = root.replace(/\/+$/, "");
  if (base && (path === base || path.startsWith(`${base}/`)))
    return `/${path.slice(base.length + 1)}`;
  return path;
}

/** What an agent left out at start (`AgentInfo.diagnostics`, e.g. project resources skipped
 * without --trust-project): a warning line with the count, every line in its tooltip and in the
 * list it unfolds; null when there is nothing to say. */
export function renderAgentDiagnostics(agent: AgentInfo): HTMLElement | null {
  const lines = (agent.diagnostics ?? []).filter((line) => typeof line === "string" && line);
  if (lines.length === 0) return null;
  const count = `${lines.length} start note${lines.length === 1 ? "" : "s"}`;
  return h(
    "details",
    { class: "shard-agent-diagnostics", title: lines.join("\n") },
    h(
      "summary",
      {
        class: "shard-badge shard-tone-warn",
        attrs: { "aria-label": `${count} from the agent's start` },
      },
      `⚠ ${count}`,
    ),
    renderDiagnostics(lines),
  );
}

export class AgentsPanel extends Widget {
  private readonly rows: AgentRows;
  private readonly formSlot: HTMLElement;
  private readonly problem: HTMLElement;
  private readonly grants: WorkspaceGrantsSection;
  private readonly workflows: WorkflowsSection;
  private stopWatching: (() => void) | null = null;

  constructor(
    private readonly directory: AgentDirectory,
    private readonly root: string,
    private readonly actions: PanelActions,
  ) {
    super();
    this.id = "shard-agents";
    this.addClass("shard-panel");
    this.addClass("shard-widget");
    this.title.caption = "Shard agents";
    this.node.setAttribute("role", "region"); // a screen reader names the panel it enters
    this.node.setAttribute("aria-label", "Shard agents");
    this.rows = new AgentRows(
      { open: (agent) => actions.open(agent), kill: (agent) => void actions.kill(agent) },
      {
        badge: badgeOf,
        path: (path) => shortPath(path, root),
        diagnostics: renderAgentDiagnostics,
      },
    );
    this.formSlot = h("div", { class: "shard-form-slot" });
    this.problem = h("div", { class: "shard-panel-problem", attrs: { role: "alert" } });
    this.grants = new WorkspaceGrantsSection(
      directory.api,
      (path) => shortPath(path, root),
      directory.changed,
    );
    this.workflows = new WorkflowsSection(
      directory.api,
      {
        agents: () => directory.list,
        badge: badgeOf,
        label: () => actions.label?.() ?? "the Lab panel",
      },
      directory.events?.workflowUpdated ?? null,
      directory.changed,
    );
    directory.events?.liveChanged.connect(this.onLive, this);
    this.node.append(
      h(
        "div",
        { class: "shard-panel-header" },
        h("span", { class: "shard-panel-title" }, "Shard agents"),
        button("New agent", () => this.showForm(), "shard-button-primary shard-new-agent-button"),
      ),
      this.formSlot,
      this.problem,
      this.rows.el,
      this.workflows.el,
      this.usageHistory(),
      this.grants.el,
    );
    directory.changed.connect(this.render, this);
    this.render();
  }

  /** "Usage, last 7 days": a bar per day from the usage history, fetched when opened. */
  private usageHistory(): HTMLElement {
    const body = h("div", { class: "shard-usage-body" });
    const details = h(
      "details",
      { class: "shard-usage-section" },
      h("summary", null, "Usage, last 7 days"),
      body,
    );
    details.addEventListener("toggle", () => {
      if (!details.open) return;
      body.replaceChildren(h("div", { class: "shard-empty" }, "Loading…"));
      this.directory.api.usage("7d", "day").then(
        (rows) => body.replaceChildren(renderUsageHistory(rows)),
        (error: unknown) =>
          body.replaceChildren(
            h("div", { class: "shard-panel-problem" }, `Usage: ${String(error)}`),
          ),
      );
    });
    return details;
  }

  showForm(): void {
    const actions: NewAgentActions = {
      pickFolder: this.actions.pickFolder,
      modelDefault: () => this.directory.api.modelDefault(),
      cancel: () => this.formSlot.replaceChildren(),
      create: async (request) => {
        await this.actions.create(request);
        this.formSlot.replaceChildren();
      },
    };
    this.formSlot.replaceChildren(renderNewAgentForm(this.root, actions));
    this.formSlot.querySelector<HTMLInputElement>("input")?.focus();
  }

  /** The events came back: read the workflow runs again (what moved while they were down). */
  private onLive(_: unknown, live: boolean): void {
    if (live) void this.workflows.refresh();
  }

  protected override onAfterShow(): void {
    this.stopWatching ??= this.directory.watch();
  }

  protected override onAfterAttach(): void {
    if (this.isVisible) this.stopWatching ??= this.directory.watch();
  }

  protected override onBeforeHide(): void {
    this.stopWatching?.();
    this.stopWatching = null;
  }

  override dispose(): void {
    this.stopWatching?.();
    this.directory.changed.disconnect(this.render, this);
    this.grants.dispose(this.directory.changed);
    this.workflows.dispose();
    this.directory.events?.liveChanged.disconnect(this.onLive, this);
    super.dispose();
  }

  private render(): void {
    this.problem.textContent = this.directory.problem ?? "";
    const empty = this.directory.problem
      ? ""
      : "No agents yet: New agent, or open a notebook with the Shard kernel.";
    this.rows.render(this.directory.list, empty);
  }
}
