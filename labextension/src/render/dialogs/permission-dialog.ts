// The permission dialog: which tool, its whole input as text, and the three answers. "Always
// allow" shows the exact rule it will save; "Deny" takes an optional reason. The dialog never
// decides anything itself: it reports the answer and waits for permission_resolved.
import { button, clear, h } from "../dom";
import { renderJson } from "../json-text";
import type { PermissionRequestEvent, PermissionResolvedEvent } from "../../wire";

export type PermissionDecision = "allow" | "allow_always" | "deny";

export interface PermissionAnswer {
  readonly requestId: string;
  readonly decision: PermissionDecision;
  readonly rule: string | null;
  readonly reason: string | null;
}

const SOURCES: Readonly<Record<PermissionResolvedEvent["source"], string>> = {
  rule: "a permission rule",
  grant: "a saved grant",
  mode: "the mode",
  client: "",
  headless: "the headless policy",
  timeout: "timeout",
  abort: "abort",
};

const VERDICTS: Readonly<Record<PermissionDecision, string>> = {
  allow: "✔ Allowed once",
  allow_always: "✔ Always allowed",
  deny: "✖ Denied",
};

export function describeResolution(resolved: PermissionResolvedEvent): string {
  const via = SOURCES[resolved.source] ?? resolved.source;
  let text = `${VERDICTS[resolved.decision] ?? resolved.decision} — by ${resolved.decided_by}`;
  if (via) text += ` (${via})`;
  if (resolved.rule) text += ` · rule: ${resolved.rule}`;
  if (resolved.reason) text += ` · reason: ${resolved.reason}`;
  return text;
}

export class PermissionDialogView {
  readonly el: HTMLElement;
  private readonly actions: HTMLElement;
  private readonly footer: HTMLElement;
  private readonly reasonInput: HTMLInputElement;
  private readonly buttons: HTMLButtonElement[] = [];

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
    this.actions = this.buildActions();
    this.footer = h("div", { class: "shard-dialog-footer", attrs: { "aria-live": "polite" } });
    this.el = h(
      "section",
      {
        class: "shard-dialog shard-permission",
        attrs: { role: "dialog", "aria-label": `Permission for ${request.tool}` },
      },
      h(
        "header",
        { class: "shard-dialog-title" },
        "Permission needed: ",
        h("span", { class: "shard-tool-name" }, request.tool),
        request.read_only ? h("span", { class: "shard-badge" }, "read-only") : null,
      ),
      request.prompt ? h("p", { class: "shard-permission-prompt" }, request.prompt) : null,
      renderJson(request.input, "shard-json shard-permission-input"),
      this.actions,
      this.footer,
    );
  }

  /** Open (null) or closed with who decided; a closed dialog has no buttons. */
  setResolved(resolved: PermissionResolvedEvent | null, stillPending = true): void {
    if (resolved === null && stillPending) return;
    this.actions.remove();
    this.el.classList.add("shard-dialog-closed");
    const text = resolved ? describeResolution(resolved) : "No longer pending.";
    this.setFooter(text, resolved?.decision === "deny" ? "shard-tone-error" : "shard-tone-success");
  }

  setBusy(busy: boolean): void {
    for (const b of this.buttons) b.disabled = busy;
    this.reasonInput.disabled = busy;
    if (busy) this.setFooter("Sending…", "shard-tone-info");
  }

  setError(message: string): void {
    this.setBusy(false);
    this.setFooter(message, "shard-tone-error");
  }

  private buildActions(): HTMLElement {
    const rule = this.request.suggested_rule ?? null;
    const allow = button("Allow once", () => this.answer("allow"), "shard-button-primary");
    const deny = button("Deny", () => this.answer("deny"), "shard-button-danger");
    this.buttons.push(allow, deny);
    let always: HTMLElement | null = null;
    if (rule) {
      const alwaysButton = button("Always allow", () => this.answer("allow_always"));
      this.buttons.push(alwaysButton);
      always = h(
        "span",
        { class: "shard-always" },
        alwaysButton,
        h(
          "span",
          { class: "shard-rule-caption" },
          "saves rule ",
          h("code", { class: "shard-rule" }, rule),
        ),
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

  private answer(decision: PermissionDecision): void {
    if (this.buttons.some((b) => b.disabled)) return;
    const reason = this.reasonInput.value.trim();
    this.setBusy(true);
    this.onAnswer({
      requestId: this.request.request_id,
      decision,
      rule: decision === "allow_always" ? (this.request.suggested_rule ?? null) : null,
      reason: decision === "deny" && reason ? reason : null,
    });
  }

  private setFooter(text: string, toneClass: string): void {
    clear(this.footer);
    this.footer.className = `shard-dialog-footer ${toneClass}`;
    this.footer.textContent = text;
  }
}
