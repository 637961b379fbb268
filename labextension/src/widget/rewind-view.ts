// "Rewind to here" and "Changes" on each turn, "Changes" and "Undo last rewind" for the session:
// a panel between the header and the transcript. Everything goes to the agent as the protocol's
// `rewind` command (one client for the Lab chat and the widget); the reply comes back to this
// view, and an applied rewind reaches every attached client as a `rewind` event. A file a person
// changed since the agent wrote it is shown in its three versions, and nothing changes until the
// person chooses.
import { append, button, h, type Child } from "../render/dom";
import { isArrayOf, isRecord, isString } from "../render/guards";
import { renderMarkdown } from "../render/markdown";
import type { ChangesReview, CommandReply } from "../wire";
import type { WidgetModel } from "./model";
import { asReply } from "./replies";
import * as rc from "./rewind-commands";
import { ReviewView, type PartState } from "./review-view";

type OnReply = (reply: CommandReply) => void;
type Retry = (choice: rc.RewindChoice) => void;

const SCOPES: readonly (readonly [rc.RewindScope, string, string])[] = [
  ["code", "Code", "put the files back as they were; the conversation goes on"],
  ["conversation", "Conversation", "continue the conversation from before this turn; files stay"],
  ["both", "Both", "files and conversation as they were before this turn"],
];

function stringList(value: unknown): string[] {
  return isArrayOf(value, isString) ? value : [];
}

function asReview(value: unknown): ChangesReview | null {
  if (!isRecord(value) || value["type"] !== "changes_review" || !Array.isArray(value["files"]))
    return null;
  return value as unknown as ChangesReview; // built by the agent from the same pydantic model
}

export class RewindControls {
  readonly panel: HTMLElement;
  readonly bar: HTMLElement;
  private readonly waiting = new Map<string, OnReply>();
  private readonly undoButton: HTMLButtonElement;
  private review: ReviewView | null = null;

  constructor(private readonly model: WidgetModel) {
    this.panel = h("div", {
      class: "shard-rewind-panel",
      attrs: { role: "region", "aria-label": "Rewind and changes" },
    });
    this.panel.hidden = true;
    this.undoButton = button(
      "Undo last rewind",
      () => this.undo("refuse"),
      "shard-button-small shard-rewind-undo",
    );
    this.undoButton.hidden = true;
    this.bar = h(
      "div",
      { class: "shard-rewind-bar" },
      button("Changes", () => this.changes(null), "shard-button-small shard-session-changes"),
      this.undoButton,
    );
    this.bar.title = "Everything this session changed, file by file";
  }

  /** The actions under a turn's prompt (`entryId`: the prompt's entry in the log). */
  turnActions(entryId: string): HTMLElement {
    return h(
      "div",
      { class: "shard-turn-actions" },
      button("Rewind to here", () => this.choose(entryId), "shard-button-small shard-rewind-here"),
      button("Changes", () => this.changes(entryId), "shard-button-small shard-turn-changes"),
    );
  }

  /** Handles the reply to a command this view sent; false for any other message. */
  onReply(message: unknown): boolean {
    const reply = asReply(message);
    const handler = reply?.command_id ? this.waiting.get(reply.command_id) : undefined;
    if (!reply?.command_id || handler === undefined) return false;
    this.waiting.delete(reply.command_id);
    handler(reply);
    return true;
  }

  /** The events changed: undo is offered once the transcript holds a rewind. */
  refresh(events: readonly unknown[]): void {
    this.undoButton.hidden = !events.some((e) => isRecord(e) && e["type"] === "rewind");
  }

  private send(command: rc.RewindMessage, onReply: OnReply): void {
    this.waiting.set(command.id, onReply);
    this.model.send(command);
  }

  private show(...children: Child[]): void {
    this.panel.replaceChildren();
    append(this.panel, ...children);
    this.panel.hidden = false;
    // in a long notebook widget the panel may be out of sight; the keyboard lands on its first button
    this.panel.scrollIntoView?.({ block: "nearest" });
    this.panel.querySelector<HTMLButtonElement>("button")?.focus({ preventScroll: true });
  }

  private close(): void {
    this.review = null;
    this.panel.hidden = true;
    this.panel.replaceChildren();
  }

  private closeButton(): HTMLButtonElement {
    return button("Close", () => this.close(), "shard-button-small shard-rewind-close");
  }

  private working(text: string): void {
    this.review = null;
    this.show(h("div", { class: "shard-rewind-working", attrs: { role: "status" } }, text));
  }

  private choose(target: string): void {
    this.review = null;
    this.show(
      h(
        "div",
        { class: "shard-rewind-choose", attrs: { "data-target": target } },
        h("div", { class: "shard-rewind-title" }, "Rewind to before this turn"),
        h(
          "ul",
          { class: "shard-rewind-scopes" },
          ...SCOPES.map(([scope, label, what]) =>
            h(
              "li",
              null,
              button(
                label,
                () => this.rewind(target, scope, "refuse"),
                `shard-button-small shard-rewind-${scope}`,
              ),
              ` ${what}`,
            ),
          ),
        ),
        h(
          "div",
          { class: "shard-rewind-note" },
          "A file someone changed since the agent wrote it is not overwritten without asking; " +
            "the rewind itself can be undone.",
        ),
        button("Cancel", () => this.close(), "shard-button-small shard-rewind-cancel"),
      ),
    );
  }

  private rewind(target: string, scope: rc.RewindScope, choice: rc.RewindChoice): void {
    this.working("Rewinding…");
    this.send(rc.rewindTo(target, scope, choice), (reply) =>
      this.result(reply, (again) => this.rewind(target, scope, again)),
    );
  }

  private undo(choice: rc.RewindChoice): void {
    this.working("Undoing the last rewind…");
    this.send(rc.undoRewind(choice), (reply) => this.result(reply, (again) => this.undo(again)));
  }

  private result(reply: CommandReply, retry: Retry): void {
    const conflicts = stringList(reply.data["conflicts"]);
    if (!reply.ok && conflicts.length > 0 && reply.data["applied"] === false)
      return this.conflict(reply.message, retry);
    const tone = reply.ok ? "success" : reply.data["applied"] === true ? "warn" : "error";
    this.show(
      h(
        "div",
        {
          class: `shard-rewind-result shard-tone-${tone}`,
          attrs: { role: reply.ok ? "status" : "alert" },
        },
        renderMarkdown(reply.message),
      ),
      this.closeButton(),
    );
  }

  /** A person's edit since the agent's: the three versions, and nothing changes until a choice. */
  private conflict(message: string, retry: Retry): void {
    this.show(
      h(
        "div",
        { class: "shard-rewind-conflict", attrs: { role: "alert" } },
        renderMarkdown(message),
        h(
          "div",
          { class: "shard-rewind-choices" },
          button(
            "Keep their edits, restore the rest",
            () => retry("keep"),
            "shard-button-small shard-rewind-keep",
          ),
          button(
            "Overwrite their edits",
            () => retry("force"),
            "shard-button-small shard-rewind-force",
          ),
          button(
            "Cancel (change nothing)",
            () => this.close(),
            "shard-button-small shard-rewind-cancel",
          ),
        ),
      ),
    );
  }

  private changes(target: string | null, notice = ""): void {
    this.working(target ? "Loading this turn's changes…" : "Loading the session's changes…");
    this.send(rc.reviewChanges(target), (reply) => {
      const review = reply.ok ? asReview(reply.data["review"]) : null;
      if (review === null) {
        return this.show(
          h(
            "div",
            { class: "shard-rewind-result shard-tone-error", attrs: { role: "alert" } },
            reply.message || "The agent sent no review.",
          ),
          this.closeButton(),
        );
      }
      this.showReview(review, new Map(), notice);
    });
  }

  private showReview(review: ChangesReview, states: Map<string, PartState>, notice: string): void {
    const view: ReviewView = new ReviewView(
      review,
      { revert: (part, force) => this.revert(view, part, force), close: () => this.close() },
      states,
    );
    this.review = view;
    this.show(
      notice ? h("div", { class: "shard-review-notice", attrs: { role: "status" } }, notice) : null,
      view.el,
    );
  }

  private revert(view: ReviewView, part: rc.ReviewPart, force: boolean): void {
    const target = view.review.target;
    this.send(rc.revertPart(target, part, force), (reply) => {
      if (reply.ok) {
        view.setState(part, { kind: "reverted" });
        // the session's review is of the branch as it is now: its hunks renumber after a revert
        if (target === null && this.review === view)
          this.changes(null, `Reverted ${rc.partKey(part).replace("#", " ")}.`);
        return;
      }
      const conflict =
        stringList(reply.data["conflicts"]).length > 0 ||
        /changed since|no longer applies/.test(reply.message);
      view.setState(part, { kind: "error", message: reply.message, canForce: conflict && !force });
    });
  }
}
