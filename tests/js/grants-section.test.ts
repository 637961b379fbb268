import { describe, expect, it, vi } from "vitest";

import {
  WorkspaceGrantsSection,
  type GrantsSource,
} from "../../labextension/src/lab/grants-section";
import type { WorkspaceGrants } from "../../labextension/src/client/registry-api";

type Changes = ConstructorParameters<typeof WorkspaceGrantsSection>[2];

/** The agent directory's `changed` signal, as far as the section uses it. */
function changesSignal(): Changes & { emit: () => void } {
  let slots: (() => void)[] = [];
  return {
    connect: (slot: () => void, self: unknown) => {
      slots.push(slot.bind(self));
      return true;
    },
    disconnect: () => {
      slots = [];
      return true;
    },
    emit: () => slots.forEach((slot) => slot()),
  } as unknown as Changes & { emit: () => void };
}

function source(
  folders: WorkspaceGrants[],
): GrantsSource & { revoked: string[] } {
  const revoked: string[] = [];
  return {
    revoked,
    workspaceGrants: async () =>
      folders.map((f) => ({
        ...f,
        grants: f.grants.filter((g) => !revoked.includes(g.rule)),
      })),
    revokeWorkspaceGrant: async (workspace, rule) => {
      revoked.push(rule);
      expect(workspace).toBe("/srv/project");
    },
  };
}

const PROJECT: WorkspaceGrants = {
  workspace: "/srv/project",
  grants: [
    { rule: "Write(note.txt)", granted_by: "you", ts: 1_700_000_000 },
    {
      rule: "Bash(make test)",
      granted_by: "alice · Tab 1a2b",
      ts: 1_700_000_100,
    },
  ],
  problem: null,
};

async function opened(section: WorkspaceGrantsSection): Promise<void> {
  section.el.open = true;
  await section.refresh();
}

describe("the sidebar's workspace grants", () => {
  it("lists each folder's rules and who saved them, and Revoke removes one", async () => {
    const changes = changesSignal();
    const from = source([PROJECT]);
    const section = new WorkspaceGrantsSection(
      from,
      (p) => p.replace("/srv", ""),
      changes,
    );
    await opened(section);
    const rules = () =>
      [...section.el.querySelectorAll(".shard-grant-rule")].map(
        (el) => el.textContent,
      );
    expect(
      section.el.querySelector(".shard-grants-folder-name")?.textContent,
    ).toBe("/project");
    expect(rules()).toEqual(["Write(note.txt)", "Bash(make test)"]);
    expect(section.el.querySelector(".shard-grant-by")?.textContent).toBe(
      "by you",
    );
    const revoke = section.el.querySelector<HTMLButtonElement>(
      '[data-rule="Write(note.txt)"] .shard-grant-revoke',
    );
    expect(revoke?.getAttribute("aria-label")).toBe(
      "Revoke Write(note.txt) in /project",
    );
    revoke?.click();
    await vi.waitFor(() => expect(rules()).toEqual(["Bash(make test)"]));
    expect(from.revoked).toEqual(["Write(note.txt)"]);
  });

  it("says how a grant is made when there is none, and shows a refused read", async () => {
    const changes = changesSignal();
    const empty = new WorkspaceGrantsSection(source([]), (p) => p, changes);
    await opened(empty);
    expect(empty.el.textContent).toContain('"Always allow in this workspace"');
    const failing = new WorkspaceGrantsSection(
      {
        workspaceGrants: async () => {
          throw new Error("the Jupyter server did not answer");
        },
        revokeWorkspaceGrant: async () => undefined,
      },
      (p) => p,
      changes,
    );
    await opened(failing);
    expect(failing.el.querySelector('[role="alert"]')?.textContent).toContain(
      "did not answer",
    );
  });

  it("reads again after the agents changed, only while open", async () => {
    vi.useFakeTimers();
    try {
      const changes = changesSignal();
      const read = vi.fn(async () => [PROJECT]);
      const section = new WorkspaceGrantsSection(
        { workspaceGrants: read, revokeWorkspaceGrant: async () => undefined },
        (p) => p,
        changes,
      );
      changes.emit();
      await vi.advanceTimersByTimeAsync(1000);
      expect(read).not.toHaveBeenCalled(); // closed: nothing read
      section.el.open = true;
      changes.emit();
      changes.emit();
      await vi.advanceTimersByTimeAsync(1000);
      expect(read).toHaveBeenCalledTimes(2); // opening read once, and two changes once
      section.dispose(changes);
      changes.emit();
      await vi.advanceTimersByTimeAsync(1000);
      expect(read).toHaveBeenCalledTimes(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
