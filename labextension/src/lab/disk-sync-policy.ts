// What an open notebook does when its file changed on disk (an agent's notebook_edit or
// notebook_run wrote it): pure, so it is tested without JupyterLab.
export type DiskAction = "none" | "reload" | "notice";

export interface DiskState {
  /** last_modified of the version the document holds (null before it loaded) */
  known: string | null;
  /** last_modified of the file on disk now */
  onDisk: string;
  /** whether the document has unsaved edits */
  dirty: boolean;
  /** real-time collaboration: the server's shared document follows the file itself */
  collaborative: boolean;
  /** the disk version the user was already told about */
  noticed: string | null;
}

export function diskAction(state: DiskState): DiskAction {
  if (state.collaborative || state.known === null) {
    return "none";
  }
  if (Date.parse(state.onDisk) <= Date.parse(state.known)) {
    return "none";
  }
  if (!state.dirty) {
    return "reload";
  }
  return state.noticed === state.onDisk ? "none" : "notice";
}

export function noticeText(name: string): string {
  return (
    `${name} was changed by the agent on disk. Your unsaved edits are kept: save to keep ` +
    "yours (Jupyter asks before overwriting), or reload to see the agent's changes."
  );
}

/** The notice when a rewind put the file back (`how`: what rewind-notices.ts says it did). */
export function rewindNoticeText(name: string, how: string): string {
  return (
    `${name}: ${how}. Your unsaved edits are kept: save to keep yours (Jupyter asks before ` +
    "overwriting), or reload to see the file as the rewind left it."
  );
}
