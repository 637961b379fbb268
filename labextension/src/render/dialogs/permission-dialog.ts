// The permission dialog: what the call will do (the request line, then a preview — a unified
// diff for edits and writes, the command for bash — or the whole input), why the gate asks, and
// the answers. "Always allow" saves the rule shown in an editable field, for this agent (A) or
// for every agent whose workspace is this folder (W, "Always allow in this workspace"). The dialog never
// decides anything itself: it reports the answer and waits for permission_resolved, then folds
// into one line that says who decided ("by you", "by alice · Tab 3f2a", "by rule Bash(ls:*)").
// Keyboard: Y allows once, A always allows (this agent), W always allows (this workspace), N denies (shown on the buttons, announced through
// aria-keyshortcuts); the page's PromptFocus gives the dialog the focus when it opens.
import { button, clear, h } from "../dom";
import { isRecord } from "../guards";
import { renderJson } from "../json-text";
import { renderDescriptors } from "../descriptors/index";
import type { PermissionRequestEvent, PermissionResolvedEvent } from "../../wire";

export type PermissionDecision = "allow" | "allow_always" | "deny";
/** Whose grant an allow_always saves: this agent's, or every agent's in this workspace folder. */
export type GrantScope = "agent" | "workspace";

export interface PermissionAnswer {
  readonly requestId: string;
  readonly decision: PermissionDecision;
  readonly rule: string | null;
  readonly reason: string | null;
  readonly scope: GrantScope;
}

const VERDICTS: Readonly<Record<PermissionDecision, string>> = {
  allow: "✓ allowed once",
  allow_always: "✓ always allowed",
  deny: "✗ denied",
};

/** Who decided, in words: the client's label (or "you"), the rule, the grant, the policy. */
function decider(resolved: PermissionResolvedEvent, ownClientId: string | null): string {
  const clientId = (resolved as unknown as Record<string, unknown>)["client_id"];
  switch (resolved.source) {
    case "client":
      return ownClientId !== null && clientId === ownClientId ? "you" : resolved.decided_by;
    case "rule":
      return `rule ${resolved.rule ?? resolved.decided_by}`;
    case "grant": {
      // the gate's reason names the grant's store: "… (workspace grant)" or "(allow-always grant)"
      const scope = (resolved.reason ?? "").includes("(workspace grant)")
        ? "this workspace's"
        : "this agent's";
      return `${scope} saved grant ${resolved.rule ?? resolved.decided_by}`;
    }
    case "mode":
      return resolved.decided_by;
    case "headless":
      return "the headless policy";
    case "timeout":
      return "the headless policy (no answer in time)";
    case "abort":
      return "the stop of the turn";
    default:
      return resolved.decided_by;
  }
}

export function describeResolution(
  resolved: PermissionResolvedEvent,
  ownClientId: string | null = null,
): string {
  // "once" is a person's choice; a rule, a grant or a mode allows this call, not once
  const verdict =
    resolved.decision === "allow" && resolved.source !== "client"
      ? "✓ allowed"
      : (VERDICTS[resolved.decision] ?? resolved.decision);
  let text = `${verdict} — by ${decider(resolved, ownClientId)}`;
  const reason = resolved.reason ?? "";
  // the gate's own words name where it saved the grant ("… (every agent in /w)"): shown as they are
  if (resolved.source === "client" && resolved.rule && reason.startsWith("saved for "))
    return `${text} · ${reason}`;
  if (resolved.source === "client" && resolved.rule) {
    const where = resolved.scope === "workspace" ? "this workspace" : "this agent";
    text += ` · saved for ${where}: ${resolved.rule}`;
  }
  if (reason) text += ` · reason: ${reason}`;
  return text;
}

/** The prompt's first line is the request; what follows is the gate's reason for asking. */
export function splitPrompt(prompt: string): { request: string; reason: string } {
  const cut = prompt.indexOf("\n");
  return cut < 0
    ? { request: prompt, reason: "" }
    : { request: prompt.slice(0, cut), reason: prompt.slice(cut + 1).trim() };
}

/** The answer each key gives while the focus is in an open dialog (not in one of its fields). */
export const SHORTCUTS: Readonly<Record<string, PermissionDecision>> = {
  y: "allow",
  a: "allow_always",
  w: "allow_always",
  n: "deny",
};
/** The keys whose allow_always saves the grant for the whole workspace. */
const WORKSPACE_KEYS: ReadonlySet<string> = new Set(["w"]);
const KEY_OF: Readonly<Record<PermissionDecision, string>> = {
  allow: "Y",
  allow_always: "A",
  deny: "N",
};

/** A button that shows its shortcut key; its accessible name stays the label alone. */
export function shortcutButton(
  label: string,
  key: string,
  onClick: () => void,
  className = "",
): HTMLButtonElement {
  const element = button(label, onClick, className);
  element.setAttribute("aria-label", label);
  element.setAttribute("aria-keyshortcuts", key);
  element.title = `${label} (${key})`;
  element.dataset["shortcut"] = key; // drawn by the stylesheet, after the label
  return element;
}

function previewOf(request: PermissionRequestEvent): unknown[] {
  const preview = (request as unknown as Record<string, unknown>)["preview"];
  return Array.isArray(preview) ? preview.filter(isRecord) : [];
}

export class PermissionDialogView {
  readonly el: HTMLElement;
  private readonly actions: HTMLElement;
  private readonly footer: HTMLElement;
  private readonly reasonInput: HTMLInputElement;
  private readonly ruleInput: HTMLInputElement | null = null;
  private readonly buttons: HTMLButtonElement[] = [];
  private allowButton: HTMLButtonElement | null = null;
  private focusInside = false;
  /** Called once when the dialog folds; `hadFocus`: the focus was inside it just before. */
  onFold: ((hadFocus: boolean) => void) | null = null;

  constructor(
    readonly request: PermissionRequestEvent,
    private readonly onAnswer: (answer: PermissionAnswer) => void,
  ) {
    this.reasonInput = h("input", {
      class: "shard-input shard-permission-reason",
      attrs: {
        type: "text",
        placeholder: "Reason (optional, sent with Deny)",
        "aria-label": "Reason for denying",
      },
    });
    this.reasonInput.addEventListener("keydown", (event) => {
      if (event.key === "Enter") this.answer("deny");
    });
    const rule = request.suggested_rule ?? null;
    if (rule) {
      this.ruleInput = h("input", {
        class: "shard-input shard-rule-input",
        attrs: { type: "text", "aria-label": "Rule that Always allow saves", spellcheck: "false" },
      });
      this.ruleInput.value = rule;
    }
    this.actions = this.buildActions();
    this.footer = h("div", { class: "shard-dialog-footer", attrs: { "aria-live": "polite" } });
    const { request: asked, reason } = splitPrompt(request.prompt ?? "");
    const preview = previewOf(request);
    this.el = h(
      "section",
      {
        class: "shard-dialog shard-permission",
        attrs: {
          role: "dialog",
          "aria-label": `Permission for ${request.tool}`,
          "data-lm-suppress-shortcuts": "true",
        },
      },
      h(
        "header",
        { class: "shard-dialog-title" },
        "Permission needed: ",
        h("span", { class: "shard-tool-name" }, request.tool),
        request.read_only ? h("span", { class: "shard-badge" }, "read-only") : null,
      ),
      asked ? h("p", { class: "shard-permission-prompt" }, asked) : null,
      ...(preview.length > 0
        ? [
            h("div", { class: "shard-permission-preview" }, renderDescriptors(preview)),
            h(
              "details",
              { class: "shard-permission-details" },
              h("summary", null, "Input"),
              renderJson(request.input, "shard-json shard-permission-input"),
            ),
          ]
        : [renderJson(request.input, "shard-json shard-permission-input")]),
      reason
        ? h(
            "p",
            { class: "shard-permission-why" },
            h("span", { class: "shard-why-label" }, "Why: "),
            reason,
          )
        : null,
      this.actions,
      this.footer,
    );
    // Notebook 7 runs its shortcuts when the key goes down the page (capture), before this
    // dialog sees it, and a binding matches the focused element itself (`… :focus`): Y on a
    // focused Allow once changed the cell to code. Lumino skips what carries the attribute.
    for (const control of this.el.querySelectorAll("button, summary, input, textarea, select"))
      control.setAttribute("data-lm-suppress-shortcuts", "true");
    this.el.addEventListener("keydown", (event) => this.onKey(event));
    this.el.addEventListener("focusin", () => (this.focusInside = true));
    this.el.addEventListener("focusout", (event) => {
      // a button disabled while its answer is sent drops the focus to nowhere: still "inside"
      const next = event.relatedTarget;
      if (next instanceof Node && !this.el.contains(next)) this.focusInside = false;
    });
  }

  /** The focus is inside, or was when a button it held was disabled or removed. */
  hasFocus(): boolean {
    const active = this.el.ownerDocument.activeElement;
    return this.focusInside || (active !== null && this.el.contains(active));
  }

  /** The control a newly opened dialog focuses (Allow once), or null once it is answered. */
  focusTarget(): HTMLButtonElement | null {
    const target = this.allowButton;
    return target !== null && target.isConnected && !target.disabled ? target : null;
  }

  get isOpen(): boolean {
    return this.actions.parentNode !== null; // folding removes the answers
  }

  private onKey(event: KeyboardEvent): void {
    // Lab's notebook shortcuts (a, y, d d …) must not act on keys meant for the dialog
    event.stopPropagation();
    const field = event.target instanceof HTMLInputElement;
    if (field || event.ctrlKey || event.metaKey || event.altKey || !this.isOpen) return;
    const key = event.key.toLowerCase();
    const decision = SHORTCUTS[key];
    if (decision === undefined || (decision === "allow_always" && this.ruleInput === null)) return;
    event.preventDefault();
    this.answer(decision, WORKSPACE_KEYS.has(key) ? "workspace" : "agent");
  }

  /** Open (null, still pending) or folded into one line saying who decided. */
  setResolved(
    resolved: PermissionResolvedEvent | null,
    stillPending = true,
    ownClientId: string | null = null,
  ): void {
    if (resolved === null && stillPending) return;
    this.fold(
      resolved ? describeResolution(resolved, ownClientId) : "No longer pending.",
      resolved?.decision === "deny" ? "shard-tone-error" : "shard-tone-success",
    );
  }

  /** The request cannot be answered from here (no live kernel): no buttons, say why. */
  setUnavailable(message: string): void {
    const hadFocus = this.hasFocus();
    const wasOpen = this.isOpen;
    this.actions.remove();
    if (wasOpen) this.onFold?.(hadFocus);
    this.el.classList.add("shard-dialog-unavailable");
    this.setFooter(message, "shard-tone-info");
  }

  setBusy(busy: boolean): void {
    for (const b of this.buttons) b.disabled = busy;
    this.reasonInput.disabled = busy;
    if (this.ruleInput) this.ruleInput.disabled = busy;
    if (busy) this.setFooter("Sending…", "shard-tone-info");
  }

  setError(message: string): void {
    this.setBusy(false);
    this.setFooter(message, "shard-tone-error");
  }

  private fold(text: string, tone: string): void {
    const hadFocus = this.hasFocus();
    const wasOpen = this.isOpen;
    this.actions.remove();
    this.el.classList.add("shard-dialog-closed");
    for (const child of Array.from(this.el.children))
      if (child !== this.footer && child.tagName !== "HEADER")
        child.classList.add("shard-folded-away");
    this.setFooter(text, tone);
    if (wasOpen) this.onFold?.(hadFocus);
  }

  private buildActions(): HTMLElement {
    const allow = shortcutButton(
      "Allow once",
      KEY_OF.allow,
      () => this.answer("allow"),
      "shard-button-primary shard-allow-once",
    );
    const deny = shortcutButton(
      "Deny",
      KEY_OF.deny,
      () => this.answer("deny"),
      "shard-button-danger shard-deny",
    );
    this.allowButton = allow;
    this.buttons.push(allow, deny);
    let always: HTMLElement | null = null;
    if (this.ruleInput) {
      const alwaysButton = shortcutButton(
        "Always allow",
        KEY_OF.allow_always,
        () => this.answer("allow_always", "agent"),
        "shard-always-allow",
      );
      const workspaceButton = shortcutButton(
        "Always allow in this workspace",
        "W",
        () => this.answer("allow_always", "workspace"),
        "shard-always-allow-workspace",
      );
      this.buttons.push(alwaysButton, workspaceButton);
      always = h(
        "span",
        { class: "shard-always" },
        alwaysButton,
        workspaceButton,
        h(
          "span",
          { class: "shard-rule-caption" },
          "saves rule (for this agent, or every agent in this folder) ",
        ),
        this.ruleInput,
      );
    }
    return h(
      "div",
      { class: "shard-dialog-actions" },
      allow,
      always,
      h("span", { class: "shard-deny-group" }, this.reasonInput, deny),
    );
  }

  private answer(decision: PermissionDecision, scope: GrantScope = "agent"): void {
    if (this.buttons.some((b) => b.disabled)) return;
    const reason = this.reasonInput.value.trim();
    const rule = this.ruleInput?.value.trim() || (this.request.suggested_rule ?? null);
    this.setBusy(true);
    this.onAnswer({
      requestId: this.request.request_id,
      decision,
      rule: decision === "allow_always" ? rule : null,
      reason: decision === "deny" && reason ? reason : null,
      scope,
    });
  }

  private setFooter(text: string, toneClass: string): void {
    clear(this.footer);
    this.footer.className = `shard-dialog-footer ${toneClass}`;
    this.footer.textContent = text;
  }
}
