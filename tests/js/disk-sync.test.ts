import { describe, expect, it } from "vitest";
import {
  diskAction,
  noticeText,
  type DiskState,
} from "../../labextension/src/lab/disk-sync-policy";

const base: DiskState = {
  known: "2026-12-01T10:00:00.000Z",
  onDisk: "2026-12-01T10:00:05.000Z",
  dirty: false,
  collaborative: false,
  noticed: null,
};

describe("an open notebook whose file changed on disk", () => {
  it("reloads when it has no unsaved edits", () => {
    expect(diskAction(base)).toBe("reload");
  });

  it("keeps unsaved edits and tells the user once per disk version", () => {
    expect(diskAction({ ...base, dirty: true })).toBe("notice");
    expect(diskAction({ ...base, dirty: true, noticed: base.onDisk })).toBe(
      "none",
    );
    expect(
      diskAction({
        ...base,
        dirty: true,
        noticed: base.onDisk,
        onDisk: "2026-12-01T10:01:00Z",
      }),
    ).toBe("notice");
  });

  it("does nothing when the disk is not newer, before loading, or with collaboration", () => {
    expect(diskAction({ ...base, onDisk: base.known as string })).toBe("none");
    expect(diskAction({ ...base, onDisk: "2026-12-01T09:00:00Z" })).toBe(
      "none",
    );
    expect(diskAction({ ...base, known: null })).toBe("none");
    expect(diskAction({ ...base, collaborative: true })).toBe("none");
  });

  it("says who changed it and that nothing is lost", () => {
    expect(noticeText("a.ipynb")).toBe(
      "a.ipynb was changed by the agent on disk. Your unsaved edits are kept: save to keep yours " +
        "(Jupyter asks before overwriting), or reload to see the agent's changes.",
    );
  });
});
