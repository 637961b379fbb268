// kind "cell_edit": a change to one notebook cell the agent proposed, as a diff with Accept /
// Reject. The page that holds notebooks (the Lab extension) installs a CellEditHost that applies
// it to the open notebook; the host refuses when the cell no longer reads what the diff was made
// against, and the diff is then made again against what the cell holds now and asked again.
// Without a host (a widget outside Lab) the diff shows and says where it can be applied.
import { button, h } from "../dom";
import { isOneOf, isRecord, isString } from "../guards";
import { diffLines } from "../line-diff";
import type { CellEditDescriptor, Hunk } from "../../wire";
import { isDiffDescriptor, renderDiff } from "./diff";

export type AcceptOutcome =
  | { readonly status: "applied" }
  /** the cell does not read `expected`: `current` is what it holds */
  | { readonly status: "changed"; readonly current: string }
  | { readonly status: "failed"; readonly message: string };

export interface CellEditHost {
  /** Apply `d.source` to the cell only while it reads `expected` (null: never checked yet). */
  accept(d: CellEditDescriptor, expected: string | null): Promise<AcceptOutcome>;
  /** Told once a proposal is accepted or rejected (the agent hears of it). */
  decided?(d: CellEditDescriptor, decision: "accepted" | "rejected"): void;
}

interface Proposal {
  state: "open" | "applied" | "rejected";
  base: string | null;
  hunks: readonly Hunk[];
  note: string;
}

let host: CellEditHost | null = null;
/** Decisions outlive a re-render of the transcript (keyed by proposal id). */
const proposals = new Map<string, Proposal>();

export function setCellEditHost(next: CellEditHost | null): void {
  host = next;
}

const CELL_TYPES = ["code", "markdown", "raw"] as const;

export function isCellEditDescriptor(value: unknown): value is CellEditDescriptor {
  return (
    isRecord(value) &&
    value["kind"] === "cell_edit" &&
    isString(value["proposal_id"]) &&
    isString(value["path"]) &&
    isString(value["file"]) &&
    isString(value["cell_id"]) &&
    isString(value["source"]) &&
    (value["base"] === null || isString(value["base"])) &&
    isOneOf(value["cell_type"] ?? "code", CELL_TYPES) &&
    isDiffDescriptor({ kind: "diff", path: "", hunks: value["hunks"] })
  );
}

function proposalOf(d: CellEditDescriptor): Proposal {
  let found = proposals.get(d.proposal_id);
  if (found === undefined) {
    found = { state: "open", base: d.base, hunks: d.hunks, note: "" };
    proposals.set(d.proposal_id, found);
  }
  return found;
}

export function renderCellEdit(d: CellEditDescriptor): HTMLElement {
  const proposal = proposalOf(d);
  const el = h("div", { class: "shard-cell-edit" });
  el.dataset["proposal"] = d.proposal_id;
  el.dataset["cellId"] = d.cell_id;
  const draw = (): void => {
    el.dataset["state"] = proposal.state;
    const diff = renderDiff({
      kind: "diff",
      version: 1,
      path: `${d.path} · cell ${d.cell_id}`,
      hunks: [...proposal.hunks],
      status: "modified",
    });
    const state = h(
      "div",
      { class: "shard-cell-edit-state", attrs: { "aria-live": "polite" } },
      proposal.note,
    );
    el.replaceChildren(
      h("div", { class: "shard-cell-edit-title" }, "Proposed change to a cell"),
      ...(d.summary ? [h("div", { class: "shard-cell-edit-summary" }, d.summary)] : []),
      diff,
      actions(state),
      state,
    );
  };
  const actions = (state: HTMLElement): HTMLElement => {
    const row = h("div", { class: "shard-cell-edit-actions" });
    if (proposal.state !== "open") return row;
    if (host === null) {
      state.textContent = "Open this notebook in JupyterLab to accept or reject the change.";
      return row;
    }
    const accept = button("Accept", () => void onAccept(), "shard-button-primary shard-accept");
    const reject = button("Reject", () => onReject(), "shard-reject");
    row.append(accept, reject);
    const onAccept = async (): Promise<void> => {
      const using = host;
      if (using === null) return;
      accept.disabled = reject.disabled = true;
      const outcome = await using.accept(d, proposal.base);
      if (outcome.status === "applied") {
        proposal.state = "applied";
        proposal.note = `Accepted: cell ${d.cell_id} changed (undo in the cell takes it back).`;
        using.decided?.(d, "accepted");
      } else if (outcome.status === "changed") {
        proposal.base = outcome.current;
        proposal.hunks = diffLines(outcome.current, d.source);
        proposal.note =
          proposal.hunks.length === 0
            ? "The cell already reads this."
            : "The cell changed since this was proposed: the diff is now against what it " +
              "holds. Accept again to apply it.";
        if (proposal.hunks.length === 0) proposal.state = "applied";
      } else {
        proposal.note = `Not applied: ${outcome.message}`;
      }
      draw();
    };
    const onReject = (): void => {
      proposal.state = "rejected";
      proposal.note = "Rejected: the cell is unchanged.";
      host?.decided?.(d, "rejected");
      draw();
    };
    return row;
  };
  draw();
  return el;
}
