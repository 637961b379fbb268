// The "Changes" review: what a turn or the whole session changed, file by file (a notebook cell
// by cell: its source's diff and its outputs summarised, never the JSON), with Accept and Revert
// on each file, hunk and cell. Revert is a rewind of that part (the agent checkpoints it, so it
// can be undone); Accept keeps the change and folds its controls away in this view.
import { append, button, h } from "../render/dom";
import type { ChangesReview, Hunk, ReviewCell, ReviewFile } from "../wire";
import { partKey, type ReviewPart } from "./rewind-commands";

export type PartState =
  | { readonly kind: "accepted" | "reverted" | "working" }
  | { readonly kind: "error"; readonly message: string; readonly canForce: boolean };

export interface ReviewHandlers {
  revert(part: ReviewPart, force: boolean): void;
  close(): void;
}

const STATE_TEXT = { accepted: "Accepted", reverted: "Reverted", working: "Reverting…" };

export class ReviewView {
  readonly el: HTMLElement;
  private readonly controls = new Map<string, { part: ReviewPart; slot: HTMLElement }>();

  constructor(
    readonly review: ChangesReview,
    private readonly handlers: ReviewHandlers,
    private readonly states = new Map<string, PartState>(),
  ) {
    const files = review.files.map((f) => this.file(f));
    this.el = h(
      "section",
      {
        class: "shard-review",
        attrs: {
          "aria-label": review.title.replace(/\*/g, ""),
          "data-turn": String(review.turn ?? ""),
        },
      },
      h(
        "div",
        { class: "shard-review-head" },
        h("span", { class: "shard-review-title" }, review.title.replace(/\*/g, "")),
        button("Close", () => handlers.close(), "shard-button-small shard-review-close"),
      ),
      ...(files.length ? files : [h("p", { class: "shard-review-empty" }, "No file changes.")]),
    );
    for (const key of this.controls.keys()) this.paint(key);
  }

  setState(part: ReviewPart, state: PartState): void {
    this.states.set(partKey(part), state);
    this.paint(partKey(part));
  }

  /** What this view knows of each part, for the next view of the same review. */
  get knownStates(): Map<string, PartState> {
    return this.states;
  }

  private file(f: ReviewFile): HTMLElement {
    const part: ReviewPart = { path: f.path };
    const counts =
      f.cells !== null
        ? `${f.cells.length} cell(s) changed`
        : f.note
          ? ""
          : `+${f.added} −${f.removed}`;
    const head = h(
      "div",
      { class: "shard-diff-header shard-review-file-head" },
      h("span", { class: `shard-badge shard-diff-status shard-diff-${f.status}` }, f.status),
      h("span", { class: "shard-diff-path" }, f.path),
      counts ? h("span", { class: "shard-diff-stats" }, counts) : null,
      this.slot(part, "Revert file"),
    );
    const body: HTMLElement[] = [];
    if (f.note) body.push(h("div", { class: "shard-review-note" }, f.note));
    if (f.cells !== null) body.push(...f.cells.map((c) => this.cell(f.path, c)));
    else f.hunks.forEach((hunk, i) => body.push(this.hunk(f.path, hunk, i + 1)));
    return h(
      "div",
      { class: "shard-review-file shard-diff", attrs: { "data-path": f.path } },
      head,
      ...body,
    );
  }

  private cell(path: string, c: ReviewCell): HTMLElement {
    const part: ReviewPart = { path, cell: c.cell_id };
    return h(
      "div",
      { class: "shard-review-cell", attrs: { "data-cell-id": c.cell_id } },
      h(
        "div",
        { class: "shard-review-cell-head" },
        h("span", { class: "shard-review-cell-label" }, `cell ${c.cell_id}`),
        h("span", { class: "shard-review-cell-kind" }, ` (${c.cell_type}, ${c.status})`),
        this.slot(part, "Revert cell"),
      ),
      c.hunks.length
        ? lines(c.hunks)
        : h("div", { class: "shard-review-note" }, "source unchanged"),
      c.outputs ? h("div", { class: "shard-review-outputs" }, c.outputs) : null,
    );
  }

  private hunk(path: string, hunk: Hunk, n: number): HTMLElement {
    const part: ReviewPart = { path, hunk: n };
    const header = `@@ -${hunk.old_start},${hunk.old_lines} +${hunk.new_start},${hunk.new_lines} @@`;
    return h(
      "div",
      { class: "shard-review-hunk", attrs: { "data-hunk": String(n) } },
      h(
        "div",
        { class: "shard-diff-line shard-diff-hunk shard-review-hunk-head" },
        h("span", null, `${header}  hunk ${n}`),
        this.slot(part, "Revert hunk"),
      ),
      lines([hunk], false),
    );
  }

  private slot(part: ReviewPart, revertLabel: string): HTMLElement {
    const slot = h("span", {
      class: "shard-review-controls",
      attrs: { "data-revert-label": revertLabel },
    });
    this.controls.set(partKey(part), { part, slot });
    return slot;
  }

  private paint(key: string): void {
    const found = this.controls.get(key);
    if (!found) return;
    const { part, slot } = found;
    const state = this.states.get(key);
    const holder = slot.closest(".shard-review-hunk, .shard-review-cell, .shard-review-file");
    holder?.classList.toggle("shard-review-accepted", state?.kind === "accepted");
    holder?.classList.toggle("shard-review-reverted", state?.kind === "reverted");
    const revert = (force: boolean): void => {
      this.setState(part, { kind: "working" });
      this.handlers.revert(part, force);
    };
    if (state !== undefined && state.kind !== "error") {
      slot.replaceChildren(
        h(
          "span",
          { class: `shard-review-state shard-review-${state.kind}` },
          STATE_TEXT[state.kind],
        ),
      );
      return;
    }
    const label = slot.getAttribute("data-revert-label") ?? "Revert";
    slot.replaceChildren();
    append(
      slot,
      button(
        "Accept",
        () => this.setState(part, { kind: "accepted" }),
        "shard-button-small shard-review-accept",
      ),
      button(label, () => revert(false), "shard-button-small shard-review-revert"),
      ...(state?.kind === "error"
        ? [
            h("span", { class: "shard-review-error", attrs: { role: "alert" } }, state.message),
            state.canForce
              ? button(
                  "Revert over their edit",
                  () => revert(true),
                  "shard-button-small shard-review-force",
                )
              : null,
          ]
        : []),
    );
  }
}

function lines(hunks: readonly Hunk[], withHeaders = true): HTMLElement {
  const body = h("div", { class: "shard-diff-body" });
  for (const hunk of hunks) {
    if (withHeaders) {
      const header = `@@ -${hunk.old_start},${hunk.old_lines} +${hunk.new_start},${hunk.new_lines} @@`;
      body.append(h("div", { class: "shard-diff-line shard-diff-hunk" }, header));
    }
    for (const line of hunk.lines) {
      const kind = line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "ctx";
      body.append(h("div", { class: `shard-diff-line shard-diff-${kind}` }, line));
    }
  }
  return body;
}
