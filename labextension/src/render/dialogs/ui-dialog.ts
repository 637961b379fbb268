// Dialogs an extension opens through the agent: select, confirm, input, question (ask_user:
// choices, several with `multi`, the person's own words with `allow_other`), and notify, which
// only informs. Like the permission dialog it reports an answer and waits for ui_resolved.
import { button, clear, h } from "../dom";
import type { UiRequestEvent, UiResolvedEvent } from "../../wire";

export type UiValue = string | boolean | string[] | null;

export interface UiAnswer {
  readonly requestId: string;
  readonly value: UiValue;
}

const MAX_BUTTON_OPTIONS = 6;

export class UiDialogView {
  readonly el: HTMLElement;
  private readonly actions: HTMLElement;
  private readonly footer: HTMLElement;
  private readonly controls: (HTMLButtonElement | HTMLInputElement | HTMLSelectElement)[] = [];
  private focusInside = false;
  /** Called once when the dialog folds; `hadFocus`: the focus was inside it just before. */
  onFold: ((hadFocus: boolean) => void) | null = null;

  constructor(
    readonly request: UiRequestEvent,
    private readonly onAnswer: (answer: UiAnswer) => void,
  ) {
    this.actions = h("div", { class: "shard-dialog-actions" }, ...this.buildControls());
    this.footer = h("div", { class: "shard-dialog-footer", attrs: { "aria-live": "polite" } });
    this.el = h(
      "section",
      {
        class: `shard-dialog shard-ui shard-ui-${request.ui}`,
        attrs: { role: "dialog", "aria-label": request.title },
      },
      h("header", { class: "shard-dialog-title" }, request.title),
      request.message ? h("p", { class: "shard-ui-message" }, request.message) : null,
      request.ui === "notify" ? null : this.actions,
      this.footer,
    );
    this.el.addEventListener("focusin", () => (this.focusInside = true));
    this.el.addEventListener("focusout", (event) => {
      const next = event.relatedTarget;
      if (next instanceof Node && !this.el.contains(next)) this.focusInside = false;
    });
  }

  /** The focus is inside, or was when a control it held was disabled or removed. */
  hasFocus(): boolean {
    const active = this.el.ownerDocument.activeElement;
    return this.focusInside || (active !== null && this.el.contains(active));
  }

  /** The control a newly opened question focuses (its field, else its preferred answer). */
  focusTarget(): HTMLElement | null {
    if (this.actions.parentNode === null) return null;
    const field = this.controls.find((c) => !(c instanceof HTMLButtonElement));
    const preferred = this.controls.find((c) => c.classList.contains("shard-button-primary"));
    const target = field ?? preferred ?? this.controls[0] ?? null;
    return target !== null && !target.disabled ? target : null;
  }

  setResolved(resolved: UiResolvedEvent | null, stillPending = true): void {
    if (resolved === null && stillPending) return;
    const hadFocus = this.hasFocus();
    const wasOpen = this.actions.parentNode !== null;
    this.actions.remove();
    this.el.classList.add("shard-dialog-closed");
    const text = resolved
      ? `Answered: ${formatValue(resolved.value)} — by ${resolved.decided_by}`
      : "No longer pending.";
    this.setFooter(text, "shard-tone-success");
    if (wasOpen) this.onFold?.(hadFocus);
  }

  setBusy(busy: boolean): void {
    for (const control of this.controls) control.disabled = busy;
    if (busy) this.setFooter("Sending…", "shard-tone-info");
  }

  setError(message: string): void {
    this.setBusy(false);
    this.setFooter(message, "shard-tone-error");
  }

  private buildControls(): HTMLElement[] {
    const r = this.request;
    switch (r.ui) {
      case "confirm":
        return [
          this.choice("Yes", true, r.default === "yes" || r.default === "true"),
          this.choice("No", false, false),
        ];
      case "select":
        return r.options.length <= MAX_BUTTON_OPTIONS
          ? r.options.map((option) => this.choice(option, option, option === r.default))
          : this.selectBox(r.options, r.default ?? null);
      case "input":
        return this.inputBox(r.default ?? "");
      case "question":
        return this.questionControls(r);
      default:
        return [];
    }
  }

  private choice(label: string, value: UiValue, preferred: boolean): HTMLButtonElement {
    const b = button(label, () => this.answer(value), preferred ? "shard-button-primary" : "");
    this.controls.push(b);
    return b;
  }

  private selectBox(options: readonly string[], preferred: string | null): HTMLElement[] {
    const select = h("select", {
      class: "shard-input",
      attrs: { "aria-label": this.request.title },
    });
    for (const option of options) {
      const element = h("option", null, option);
      element.value = option;
      element.selected = option === preferred;
      select.appendChild(element);
    }
    const ok = button("OK", () => this.answer(select.value), "shard-button-primary");
    this.controls.push(select, ok);
    return [select, ok];
  }

  /** One button per choice for a plain question; else boxes, the own-words field, Answer. */
  private questionControls(r: UiRequestEvent): HTMLElement[] {
    if (!r.multi && !r.allow_other) return r.options.map((o) => this.choice(o, [o], false));
    const boxes = r.options.map((option) => {
      const input = h("input", {
        class: "shard-question-box",
        attrs: { type: r.multi ? "checkbox" : "radio", name: `q-${r.request_id}`, value: option },
      });
      this.controls.push(input);
      return { option, input };
    });
    const other = r.allow_other
      ? h("input", {
          class: "shard-input shard-question-other",
          attrs: { type: "text", placeholder: "Your own answer", "aria-label": "Your own answer" },
        })
      : null;
    if (other !== null) this.controls.push(other);
    const submit = button(
      "Answer",
      () => {
        const chosen = boxes.filter((b) => b.input.checked).map((b) => b.option);
        const own = other?.value.trim() ?? "";
        this.answer(own ? [...chosen, own] : chosen);
      },
      "shard-button-primary shard-question-answer",
    );
    this.controls.push(submit);
    const list = h(
      "div",
      { class: "shard-question-choices", attrs: { role: "group", "aria-label": r.title } },
      ...boxes.map(({ option, input }) =>
        h("label", { class: "shard-question-choice" }, input, h("span", null, option)),
      ),
    );
    return other === null ? [list, submit] : [list, other, submit];
  }

  private inputBox(initial: string): HTMLElement[] {
    const input = h("input", {
      class: "shard-input",
      attrs: { type: "text", "aria-label": this.request.title },
    });
    input.value = initial;
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter") this.answer(input.value);
    });
    const ok = button("Submit", () => this.answer(input.value), "shard-button-primary");
    this.controls.push(input, ok);
    return [input, ok];
  }

  private answer(value: UiValue): void {
    if (this.controls.some((c) => c.disabled)) return;
    this.setBusy(true);
    this.onAnswer({ requestId: this.request.request_id, value });
  }

  private setFooter(text: string, toneClass: string): void {
    clear(this.footer);
    this.footer.className = `shard-dialog-footer ${toneClass}`;
    this.footer.textContent = text;
  }
}

function formatValue(value: UiValue): string {
  if (value === true) return "yes";
  if (value === false) return "no";
  if (Array.isArray(value)) return value.length ? value.join(", ") : "(none)";
  return value ?? "(none)";
}
