// The sidebar's agent rows, kept across updates: each agent's row element, its Open / Kill
// buttons and a button per server terminal (open it in Lab) live as long as they are listed;
// an update rewrites only the facts of the rows whose facts changed, never the buttons. A list
// pushed several times a second (status, usage, clients) that rebuilt every row lost clicks
// (mousedown on one button, mouseup on its replacement: no click) and the keyboard focus (a
// removed button takes the focus with it).
import { button, h } from "../render/dom";
import { shortModel } from "../render/format";
import { openServerTerminal } from "../render/descriptors/terminal";
import { usageBar, usageTokens } from "../widget/usage-bars";
import { treeName, treeOrder, type TreeRow } from "../client/agent-tree";
import type { AgentInfo } from "../wire";

export interface RowActions {
  readonly open: (agent: AgentInfo) => void;
  readonly kill: (agent: AgentInfo) => void;
}

export interface RowParts {
  badge: (agent: AgentInfo) => { text: string; tone: string };
  path: (path: string) => string;
  diagnostics: (agent: AgentInfo) => HTMLElement | null;
}

class AgentRow {
  readonly item: HTMLLIElement;
  private readonly terminals = new AgentTerminals();
  private readonly open: HTMLButtonElement;
  private readonly kill: HTMLButtonElement;
  private agent: AgentInfo;
  private key = "";

  constructor(agent: AgentInfo, handlers: RowActions) {
    this.agent = agent;
    this.open = button("Open", () => handlers.open(this.agent), "shard-button-small shard-open");
    this.kill = button(
      "Kill",
      () => handlers.kill(this.agent),
      "shard-button-small shard-button-danger shard-kill",
    );
    const actions = h("div", { class: "shard-agent-actions" }, this.open, this.kill);
    this.item = h("li", { class: "shard-agent-item" }, this.terminals.el, actions);
  }

  update({ agent, depth }: TreeRow, most: number, parts: RowParts): void {
    this.agent = agent;
    const stopped = agent.runtime_state !== "running" && agent.runtime_state !== "starting";
    this.open.textContent = stopped ? "Restart & open" : "Open";
    this.open.title = stopped
      ? "Starts the agent's kernel again (its session resumes) and opens it"
      : "";
    this.kill.disabled = stopped;
    this.terminals.update(agent);
    const key = JSON.stringify([{ ...agent, terminals: null }, depth, most]);
    if (key === this.key) return;
    this.key = key;
    this.item.className = depth > 0 ? "shard-agent-item shard-agent-child" : "shard-agent-item";
    this.item.dataset["agentId"] = agent.id;
    this.item.dataset["depth"] = String(depth);
    const badge = parts.badge(agent);
    const facts = [
      h(
        "div",
        { class: "shard-agent-line" },
        h("span", { class: `shard-dot shard-dot-${badge.tone}`, attrs: { "aria-hidden": "true" } }),
        h("span", { class: "shard-agent-name", title: agent.name }, treeName({ agent, depth })),
        h("span", { class: `shard-badge shard-status-badge shard-tone-${badge.tone}` }, badge.text),
      ),
      agent.title
        ? h("div", { class: "shard-agent-title", title: agent.title }, agent.title)
        : null,
      h(
        "div",
        { class: "shard-agent-meta" },
        h("span", { class: "shard-agent-cwd", title: agent.cwd }, parts.path(agent.cwd)),
        h(
          "span",
          { class: "shard-agent-facts", title: agent.model },
          `${shortModel(agent.model)} · ${agent.mode} · ${agent.clients} client${agent.clients === 1 ? "" : "s"}`,
        ),
      ),
      parts.diagnostics(agent),
      usageBar(agent.usage, most),
    ].filter((part): part is HTMLElement => part !== null);
    const kept = this.terminals.el; // it and the buttons after it stay where they are
    while (this.item.firstChild !== kept) this.item.firstChild?.remove();
    kept.before(...facts);
  }
}

/** The agent's server terminals, each a button that opens it in Lab (kept by name). */
class AgentTerminals {
  readonly el: HTMLElement;
  private readonly list: HTMLElement;
  private readonly buttons = new Map<string, HTMLButtonElement>();

  constructor() {
    this.list = h("span", { class: "shard-agent-terminal-list" });
    this.el = h(
      "div",
      { class: "shard-agent-terminals", attrs: { role: "group" } },
      h("span", { class: "shard-agent-terminals-label" }, "Terminals"),
      this.list,
    );
    this.el.hidden = true;
  }

  update(agent: AgentInfo): void {
    const terminals = agent.terminals ?? []; // none from an older server
    this.el.hidden = terminals.length === 0;
    this.el.setAttribute("aria-label", `Terminals of ${agent.name}`);
    const wanted = terminals.map((terminal) => {
      const name = terminal.name;
      let open = this.buttons.get(name);
      if (open === undefined) {
        const made = button(
          "",
          () => openServerTerminal(made, name),
          "shard-button-small shard-agent-terminal",
        );
        this.buttons.set(name, made);
        open = made;
      }
      open.textContent = `⌨ ${terminal.label}`;
      open.title = `Open in Lab: ${terminal.command} (terminal ${name})`;
      open.setAttribute("aria-label", `Open terminal ${terminal.label} in Lab`);
      return open;
    });
    const names = new Set(terminals.map((t) => t.name));
    for (const name of [...this.buttons.keys()]) if (!names.has(name)) this.buttons.delete(name);
    keepInOrder(this.list, wanted);
  }
}

/** Puts `wanted` in `parent` in this order, moving only what is out of place. */
function keepInOrder(parent: HTMLElement, wanted: readonly Element[]): void {
  for (const child of [...parent.children]) if (!wanted.includes(child)) child.remove();
  wanted.forEach((item, index) => {
    if (parent.children[index] !== item) parent.insertBefore(item, parent.children[index] ?? null);
  });
}

export class AgentRows {
  readonly el: HTMLUListElement;
  private readonly rows = new Map<string, AgentRow>();

  constructor(
    private readonly handlers: RowActions,
    private readonly parts: RowParts,
  ) {
    this.el = h("ul", { class: "shard-agent-list", attrs: { "aria-label": "Agents" } });
  }

  /** Shows these agents (tree order); `empty` when there are none. */
  render(agents: readonly AgentInfo[], empty: string): void {
    if (agents.length === 0) {
      this.rows.clear();
      this.el.replaceChildren(h("li", { class: "shard-empty" }, empty));
      return;
    }
    const most = Math.max(0, ...agents.map((agent) => usageTokens(agent.usage)));
    const wanted: HTMLLIElement[] = [];
    for (const row of treeOrder(agents)) {
      let view = this.rows.get(row.agent.id);
      if (view === undefined) {
        view = new AgentRow(row.agent, this.handlers);
        this.rows.set(row.agent.id, view);
      }
      view.update(row, most, this.parts);
      wanted.push(view.item);
    }
    const listed = new Set(agents.map((agent) => agent.id));
    for (const id of [...this.rows.keys()]) if (!listed.has(id)) this.rows.delete(id);
    keepInOrder(this.el, wanted); // a row that stays where it is is never detached
  }
}
