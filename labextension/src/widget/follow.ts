// Following a conversation as every chat does: the transcript stays at the bottom while content
// arrives unless the person scrolled up (then a "↓ new activity" pill brings them back); a new
// prompt is scrolled into view and takes the focus — unless the person is typing elsewhere —
// and once a focused prompt is answered the focus moves to the next open prompt, else back to
// where it was before the first one took it.
import { h } from "../render/dom";

/** Within this many pixels of the end the view counts as "at the bottom". */
export const PIN_SLACK_PX = 40;

export function atBottom(scroller: HTMLElement): boolean {
  return scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < PIN_SLACK_PX;
}

/** Whether `element` holds text a person is writing: a non-empty field or editor. Moving the
 * focus away from it would send their next keys somewhere else. */
export function isTyping(element: Element | null): boolean {
  if (element === null) return false;
  if (element instanceof HTMLTextAreaElement) return element.value !== "";
  if (element instanceof HTMLInputElement) {
    const texty = ["text", "search", "email", "url", "tel", "password", "number", ""];
    return texty.includes(element.type) && element.value !== "";
  }
  if (element instanceof HTMLSelectElement) return true;
  const editable = element.closest('[contenteditable="true"], [contenteditable=""]');
  return editable !== null && (editable.textContent ?? "").trim() !== "";
}

/** A prompt that can take the focus: the element it lives in and the control to focus. */
export interface FocusablePrompt {
  readonly el: HTMLElement;
  focusTarget(): HTMLElement | null;
}

/** Where the focus goes as prompts open and close, for one document. */
export class PromptFocus {
  private readonly open: FocusablePrompt[] = [];
  private returnTo: HTMLElement | null = null;

  constructor(private readonly doc: Document = document) {}

  /** A prompt opened: in view, and focused when nobody is typing elsewhere. Returns whether
   * it took the focus. */
  offer(prompt: FocusablePrompt): boolean {
    if (!this.open.includes(prompt)) this.open.push(prompt);
    prompt.el.scrollIntoView?.({ block: "nearest" });
    const active = this.doc.activeElement;
    if (this.holdsFocus()) return false; // an earlier prompt has it: this one is next
    if (isTyping(active)) return false;
    const target = prompt.focusTarget();
    if (target === null) return false;
    if (active instanceof HTMLElement && active !== this.doc.body) this.returnTo = active;
    target.focus({ preventScroll: true });
    return this.doc.activeElement === target;
  }

  /** A prompt was answered or withdrawn. `hadFocus`: the focus was inside it just before it
   * folded (its buttons are gone now, so the focus fell to the page). */
  close(prompt: FocusablePrompt, hadFocus: boolean): void {
    const index = this.open.indexOf(prompt);
    if (index < 0) return; // never offered, or closed already
    this.open.splice(index, 1);
    const active = this.doc.activeElement;
    const lost = active === null || active === this.doc.body || prompt.el.contains(active);
    if (!hadFocus || !lost) return;
    for (const next of this.open) {
      const target = next.el.isConnected ? next.focusTarget() : null;
      if (target !== null) {
        next.el.scrollIntoView?.({ block: "nearest" });
        target.focus({ preventScroll: true });
        return;
      }
    }
    const back = this.returnTo;
    this.returnTo = null;
    if (back !== null && back.isConnected) back.focus({ preventScroll: true });
  }

  /** Forget prompts whose element left the page (a re-render, a closed tab). */
  prune(): void {
    for (let i = this.open.length - 1; i >= 0; i -= 1)
      if (!this.open[i]!.el.isConnected) this.open.splice(i, 1);
  }

  private holdsFocus(): boolean {
    const active = this.doc.activeElement;
    return active !== null && this.open.some((p) => p.el.isConnected && p.el.contains(active));
  }
}

/** The page's one PromptFocus: the chat tabs, the agent widgets and the notebook's prompts
 * share it, so "the next prompt" is whichever opened next anywhere on the page. */
export const promptFocus = new PromptFocus();

/** Keeps `scroller` at the bottom while content arrives, unless the person scrolled up. */
export class TranscriptFollower {
  readonly pill: HTMLButtonElement;
  private pinned = true;

  constructor(readonly scroller: HTMLElement) {
    this.pill = h(
      "button",
      {
        class: "shard-button shard-new-activity",
        attrs: { type: "button", "aria-label": "New activity: scroll to the latest" },
      },
      "↓ new activity",
    );
    this.pill.hidden = true;
    this.pill.addEventListener("click", () => this.toBottom());
    scroller.addEventListener("scroll", () => this.onScroll(), { passive: true });
  }

  get isPinned(): boolean {
    return this.pinned;
  }

  /** After the content changed: follow it, or say there is more below. */
  contentChanged(): void {
    if (this.pinned) this.scroller.scrollTop = this.scroller.scrollHeight;
    else if (!atBottom(this.scroller)) this.pill.hidden = false;
  }

  /** Shows `element` (a new prompt); the view counts as pinned again if it reached the end. */
  reveal(element: HTMLElement): void {
    element.scrollIntoView?.({ block: "nearest" });
    this.onScroll();
  }

  toBottom(): void {
    this.pinned = true;
    this.pill.hidden = true;
    this.scroller.scrollTop = this.scroller.scrollHeight;
  }

  private onScroll(): void {
    this.pinned = atBottom(this.scroller);
    if (this.pinned) this.pill.hidden = true;
  }
}
