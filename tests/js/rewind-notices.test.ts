// What a rewind put back, for the open notebooks that follow the disk: the server path of each
// restored file, the words the dirty notebook's notice uses, and old rewinds left out.
import { describe, expect, it } from "vitest";
import { rewindNoticeText } from "../../labextension/src/lab/disk-sync-policy";
import {
  describeRewind,
  noteRewind,
  onRewindNoted,
  rewindNote,
  serverPath,
  watchRewinds,
} from "../../labextension/src/lab/rewind-notices";
import { FakeModel } from "./helpers";

const NOW = 1_800_000_000_000;
const rewind = (restored: string[], ts = NOW / 1000) => ({
  type: "rewind",
  seq: 7,
  ts,
  entry_id: "e-rw",
  to_entry_id: "e-turn-2",
  scope: "code",
  restored,
  message:
    "**Rewound files**\nRestored: `nb.ipynb`\n- `nb.ipynb`: restored cell by cell; kept your edits to 1 cell(s)",
});

describe("rewind notices", () => {
  it("maps a workspace path to the server's", () => {
    expect(serverPath("/srv/root", "/srv/root/proj", "nb.ipynb")).toBe(
      "proj/nb.ipynb",
    );
    expect(serverPath("/srv/root/", "/srv/root", "a/b.ipynb")).toBe(
      "a/b.ipynb",
    );
    expect(serverPath("/srv/root", "/elsewhere", "nb.ipynb")).toBeNull();
    expect(serverPath("/srv/root", "/srv/rootless", "nb.ipynb")).toBeNull();
  });

  it("says what the rewind did to the file, from its message", () => {
    expect(describeRewind("nb.ipynb", "e-turn-2", rewind([]).message)).toBe(
      "a rewind put it back as it was before entry e-turn-2 (restored cell by cell; kept your edits to 1 cell(s))",
    );
    expect(describeRewind("a.py", "e-1", "Restored: `a.py`")).toBe(
      "a rewind put it back as it was before entry e-1",
    );
    expect(rewindNoticeText("nb.ipynb", "a rewind put it back")).toContain(
      "nb.ipynb: a rewind put it back. Your unsaved edits are kept",
    );
  });

  it("notes recent rewinds for their files and tells the open notebooks", () => {
    const told: string[] = [];
    const stop = onRewindNoted((path) => told.push(path));
    noteRewind("/srv", "/srv/ws", rewind(["nb.ipynb"]), NOW);
    expect(told).toEqual(["ws/nb.ipynb"]);
    expect(rewindNote("ws/nb.ipynb", NOW)).toContain("before entry e-turn-2");
    expect(rewindNote("ws/nb.ipynb", NOW + 11 * 60_000)).toBeNull(); // forgotten after a while
    noteRewind(
      "/srv",
      "/srv/ws",
      rewind(["old.ipynb"], NOW / 1000 - 3600),
      NOW,
    );
    expect(rewindNote("ws/old.ipynb", NOW)).toBeNull(); // from the history, not what changed it
    stop();
  });

  it("watches an agent's events once each", () => {
    const store = new FakeModel({ events: [] });
    const told: string[] = [];
    const stop = onRewindNoted((path) => told.push(path));
    const unwatch = watchRewinds(store, "/srv", () => "/srv/ws");
    const event = { ...rewind(["x.ipynb"], Date.now() / 1000) };
    store.set("events", [event]);
    store.set("events", [event, { type: "status", seq: 8, ts: 0 }]);
    expect(told).toEqual(["ws/x.ipynb"]);
    unwatch();
    stop();
  });
});
