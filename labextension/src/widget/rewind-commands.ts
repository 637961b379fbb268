// The `rewind` command in the protocol's shape (schema/command.json): list, rewind, undo, diff
// (the review) and revert. Every client sends the same one; the agent replies to the sender and
// announces an applied rewind to every attached client as a `rewind` event.
import type { RewindCommand } from "../wire";
import { nextCommandId } from "./commands";

export type RewindMessage = RewindCommand & { readonly id: string };
export type RewindScope = RewindCommand["scope"];
export type RewindChoice = RewindCommand["choice"];

/** A part of a review a revert names: the whole file, one hunk, or one notebook cell. */
export interface ReviewPart {
  readonly path: string;
  readonly hunk?: number;
  readonly cell?: string;
}

function command(fields: Partial<RewindCommand> & Pick<RewindCommand, "action">): RewindMessage {
  return {
    type: "rewind",
    target: null,
    scope: "both",
    choice: "refuse",
    turn: null,
    path: null,
    hunk: null,
    cell: null,
    ...fields,
    id: nextCommandId(),
  };
}

/** Back to before the turn whose prompt is entry `target`. */
export const rewindTo = (
  target: string,
  scope: RewindScope,
  choice: RewindChoice = "refuse",
): RewindMessage => command({ action: "rewind", target, scope, choice });

export const undoRewind = (choice: RewindChoice = "refuse"): RewindMessage =>
  command({ action: "undo", choice });

/** The review of one turn (its prompt's entry id), or of the whole session (null). */
export const reviewChanges = (target: string | null): RewindMessage =>
  command({ action: "diff", target });

/** Put one part back as it was before the turn (`target`) or the session (null). */
export const revertPart = (target: string | null, part: ReviewPart, force = false): RewindMessage =>
  command({
    action: "revert",
    target,
    path: part.path,
    hunk: part.hunk ?? null,
    cell: part.cell ?? null,
    choice: force ? "force" : "refuse",
  });

/** The key a part's state is kept under in a review. */
export function partKey(part: ReviewPart): string {
  if (part.hunk !== undefined) return `${part.path}#hunk-${part.hunk}`;
  if (part.cell !== undefined) return `${part.path}#cell-${part.cell}`;
  return part.path;
}
