// Open notebooks follow changes made on disk by an agent: a clean document reloads at once; a
// document with unsaved edits keeps them and shows a "changed by the agent" notice (toolbar and
// notification) with a Reload action. Never loses the user's work. With real-time collaboration
// (jupyter-collaboration) the server's shared document follows the file itself, so this stays out.
import type { JupyterFrontEnd, JupyterFrontEndPlugin } from "@jupyterlab/application";
import { Notification } from "@jupyterlab/apputils";
import { INotebookTracker, type NotebookPanel } from "@jupyterlab/notebook";
import type { Contents } from "@jupyterlab/services";
import { Widget } from "@lumino/widgets";
import { diskAction, noticeText, rewindNoticeText } from "./disk-sync-policy";
import { forgetRewind, onRewindNoted, rewindNote } from "./rewind-notices";

const POLL_MS = 1000;
const NOTICE_ITEM = "shardChangedOnDisk";

class DiskWatch {
  private noticed: string | null = null;
  private notice: Widget | null = null;
  private notification: string | null = null;
  private busy = false;
  private saving = false;
  private saved: string | null = null;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly panel: NotebookPanel,
    private readonly contents: Contents.IManager,
  ) {
    this.timer = setInterval(() => void this.check(), POLL_MS);
    const context = panel.context;
    void context.ready.then(() => this.remember());
    context.saveState.connect((_, state) => {
      // While Lab itself writes the file, the disk is briefly newer than what the document
      // knows: not an agent's change.
      this.saving = state === "started";
      if (state === "completed") {
        this.remember();
      }
    });
    context.fileChanged.connect(() => this.clearNotice());
    // the disk change can be seen before the rewind's event arrives: the notice then says it
    const unsubscribe = onRewindNoted((path) => {
      if (path === context.path && this.noticed !== null) this.showNotice();
    });
    panel.disposed.connect(() => {
      unsubscribe();
      clearInterval(this.timer);
      this.clearNotice();
    });
  }

  /** The cells as last loaded or saved: what counts as the user's unsaved work is a change
   * to them. Lab also marks a notebook dirty when a kernel fills in its metadata, which is
   * nothing to keep. */
  private cells(): string {
    const cells = this.panel.context.model.sharedModel.toJSON().cells;
    return JSON.stringify(
      cells.map((c) => [c.id, c.cell_type, c.source, "outputs" in c ? c.outputs : null]),
    );
  }

  private remember(): void {
    this.saved = this.cells();
  }

  private unsavedWork(): boolean {
    return this.panel.context.model.dirty && this.cells() !== this.saved;
  }

  private async check(): Promise<void> {
    const context = this.panel.context;
    if (this.busy || this.saving || !context.isReady || this.panel.isDisposed) {
      return;
    }
    this.busy = true;
    try {
      const disk = await this.contents.get(context.path, { content: false });
      if (this.saving) {
        return;
      }
      const action = diskAction({
        known: context.contentsModel?.last_modified ?? null,
        onDisk: disk.last_modified,
        dirty: this.unsavedWork(),
        collaborative: context.model.collaborative === true,
        noticed: this.noticed,
      });
      if (action === "reload") {
        await context.revert();
        this.remember();
        forgetRewind(context.path);
      } else if (action === "notice") {
        this.noticed = disk.last_modified;
        this.showNotice();
      }
    } catch {
      // the file was moved or the server is away: the next tick tries again
    } finally {
      this.busy = false;
    }
  }

  private showNotice(): void {
    const context = this.panel.context;
    const name = context.localPath.split("/").pop() ?? context.path;
    const rewound = rewindNote(context.path);
    const text = rewound ? rewindNoticeText(name, rewound) : noticeText(name);
    const badge = rewound ? "⚠ put back by a rewind" : "⚠ changed by the agent";
    if (this.notice !== null && this.notice.node.textContent !== badge) {
      this.notice.dispose();
      this.notice = null;
    }
    if (this.notice === null) {
      this.notice = new Widget();
      this.notice.addClass("shard-disk-notice");
      this.notice.node.title = text;
      this.notice.node.textContent = badge;
      // inline: one small badge does not need its own stylesheet rules
      this.notice.node.style.cssText =
        "color: var(--jp-warn-color0); font-weight: 600; padding: 0 8px; cursor: help;";
      this.panel.toolbar.insertAfter("spacer", NOTICE_ITEM, this.notice);
    }
    if (this.notification !== null) {
      Notification.dismiss(this.notification);
    }
    this.notification = Notification.warning(text, {
      autoClose: false,
      actions: [{ label: "Reload from disk", callback: () => void this.reload() }],
    });
  }

  private async reload(): Promise<void> {
    await this.panel.context.revert();
    this.remember();
  }

  private clearNotice(): void {
    this.notice?.dispose();
    this.notice = null;
    this.noticed = null;
    if (this.notification !== null) {
      Notification.dismiss(this.notification);
      this.notification = null;
    }
  }
}

function activate(app: JupyterFrontEnd, tracker: INotebookTracker): void {
  tracker.widgetAdded.connect((_, panel) => {
    new DiskWatch(panel, app.serviceManager.contents);
  });
}

export const diskSyncPlugin: JupyterFrontEndPlugin<void> = {
  id: "shard-jupyterlab:disk-sync",
  description: "Open notebooks follow an agent's edits on disk without losing unsaved work.",
  autoStart: true,
  requires: [INotebookTracker],
  activate,
};
