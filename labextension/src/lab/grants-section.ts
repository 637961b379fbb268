// The sidebar's "Workspace grants": every folder's "Always allow in this workspace" rules (what
// every agent in that folder is allowed without asking), each with Revoke. Read when opened and,
// while open, again after the agents changed (a grant is saved as its agent goes on), at most
// every half second. Revoke writes the file the agents' gates read: it holds from their next call.
import type { ISignal } from "@lumino/signaling";
import { button, h } from "../render/dom";
import type { WorkspaceGrants } from "../client/registry-api";

export interface GrantsSource {
  readonly workspaceGrants: () => Promise<WorkspaceGrants[]>;
  readonly revokeWorkspaceGrant: (workspace: string, rule: string) => Promise<void>;
}

const REFRESH_MS = 500;

function when(ts: number): string {
  return ts > 0 ? new Date(ts * 1000).toLocaleString() : "";
}

export class WorkspaceGrantsSection {
  readonly el: HTMLDetailsElement;
  private readonly body: HTMLElement;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly source: GrantsSource,
    private readonly folderName: (path: string) => string,
    changes: ISignal<unknown, void>,
  ) {
    this.body = h("div", { class: "shard-grants-body" });
    this.el = h(
      "details",
      { class: "shard-usage-section shard-grants-section" },
      h("summary", null, "Workspace grants"),
      this.body,
    );
    this.el.addEventListener("toggle", () => {
      if (this.el.open) void this.refresh();
    });
    changes.connect(this.soon, this);
  }

  dispose(changes: ISignal<unknown, void>): void {
    changes.disconnect(this.soon, this);
    if (this.timer !== null) clearTimeout(this.timer);
  }

  private soon(): void {
    if (!this.el.open || this.timer !== null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.refresh();
    }, REFRESH_MS);
  }

  async refresh(): Promise<void> {
    if (this.body.childElementCount === 0)
      this.body.replaceChildren(h("div", { class: "shard-empty" }, "Loading…"));
    try {
      this.show(await this.source.workspaceGrants());
    } catch (error) {
      this.body.replaceChildren(
        h("div", { class: "shard-panel-problem", attrs: { role: "alert" } }, String(error)),
      );
    }
  }

  private show(folders: readonly WorkspaceGrants[]): void {
    if (folders.length === 0) {
      this.body.replaceChildren(
        h(
          "div",
          { class: "shard-empty" },
          'None: "Always allow in this workspace" on a prompt saves one here.',
        ),
      );
      return;
    }
    this.body.replaceChildren(...folders.map((folder) => this.renderFolder(folder)));
  }

  private renderFolder(folder: WorkspaceGrants): HTMLElement {
    const name = this.folderName(folder.workspace);
    return h(
      "div",
      { class: "shard-grants-folder", attrs: { "data-workspace": folder.workspace } },
      h("div", { class: "shard-grants-folder-name", title: folder.workspace }, name),
      folder.problem ? h("div", { class: "shard-panel-problem" }, folder.problem) : null,
      h(
        "ul",
        { class: "shard-grants-list", attrs: { "aria-label": `Grants in ${name}` } },
        ...folder.grants.map((grant) => {
          const revoke = button(
            "Revoke",
            () => void this.revoke(folder.workspace, grant.rule, revoke),
            "shard-button-small shard-button-danger shard-grant-revoke",
          );
          revoke.setAttribute("aria-label", `Revoke ${grant.rule} in ${name}`);
          return h(
            "li",
            { class: "shard-grant", attrs: { "data-rule": grant.rule } },
            h("code", { class: "shard-grant-rule" }, grant.rule),
            h("span", { class: "shard-grant-by", title: when(grant.ts) }, `by ${grant.granted_by}`),
            revoke,
          );
        }),
      ),
    );
  }

  private async revoke(workspace: string, rule: string, control: HTMLButtonElement): Promise<void> {
    control.disabled = true;
    try {
      await this.source.revokeWorkspaceGrant(workspace, rule);
    } catch (error) {
      control.disabled = false;
      control.title = String(error);
    }
    await this.refresh();
  }
}
