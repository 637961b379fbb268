// What a rewind put back, by file, for the open notebooks that follow their file on disk
// (disk-sync.ts). A clean notebook just reloads; one with unsaved edits keeps them, and its
// notice says a rewind put the file back and how (cell by cell, the person's cells kept) instead
// of "changed by the agent". The chat tab of each agent feeds it from the agent's `rewind` events.
import { isArrayOf, isRecord, isString } from "../render/guards";
import type { Listener } from "../widget/model";

const KEEP_MS = 10 * 60_000;
const recent = new Map<string, { readonly note: string; readonly at: number }>();
const listeners = new Set<(path: string) => void>();

/** Calls `listener` with each server path a rewind is noted for (a notice already shown for
 * the file's disk change then says it was the rewind); returns the unsubscribe. */
export function onRewindNoted(listener: (path: string) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** `rel` (relative to the agent's `cwd`) as a path relative to the server's `root`; null when
 * it is outside the root. */
export function serverPath(root: string, cwd: string, rel: string): string | null {
  const base = root.replace(/\/+$/, "");
  const full = `${cwd.replace(/\/+$/, "")}/${rel}`;
  if (!base) return rel;
  return full.startsWith(`${base}/`) ? full.slice(base.length + 1) : null;
}

/** What one rewind did to `rel`, in words, from the rewind's own message. */
export function describeRewind(rel: string, toEntry: string, message: string): string {
  const detail = message
    .split("\n")
    .map((line) => line.replace(/^- /, ""))
    .find((line) => line.startsWith(`\`${rel}\`: `));
  const how = detail ? ` (${detail.slice(rel.length + 4)})` : "";
  return `a rewind put it back as it was before entry ${toEntry}${how}`;
}

export function noteRewind(root: string, cwd: string, event: unknown, now = Date.now()): void {
  if (!isRecord(event) || event["type"] !== "rewind") return;
  const restored = event["restored"];
  if (!isArrayOf(restored, isString)) return;
  const ts = typeof event["ts"] === "number" ? event["ts"] * 1000 : now;
  if (now - ts > KEEP_MS) return; // an old rewind from the history: not what changed the file now
  const message = isString(event["message"]) ? event["message"] : "";
  const to = isString(event["to_entry_id"]) ? event["to_entry_id"] : "?";
  for (const rel of restored) {
    const path = serverPath(root, cwd, rel);
    if (path === null) continue;
    recent.set(path, { note: describeRewind(rel, to, message), at: ts });
    for (const listener of listeners) listener(path);
  }
}

/** What a recent rewind did to the file at server path `path`, or null. */
export function rewindNote(path: string, now = Date.now()): string | null {
  const found = recent.get(path);
  if (found === undefined) return null;
  if (now - found.at > KEEP_MS) {
    recent.delete(path);
    return null;
  }
  return found.note;
}

export function forgetRewind(path: string): void {
  recent.delete(path);
}

interface EventSource {
  get(key: string): unknown;
  on(event: string, callback: Listener): void;
  off(event?: string | null, callback?: Listener | null): void;
}

/** Notes every `rewind` event `store` receives; `cwd` is the agent's workspace (absolute). */
export function watchRewinds(
  store: EventSource,
  root: string,
  cwd: () => string | undefined,
): () => void {
  let seen = -1;
  const onEvents = (): void => {
    const events = store.get("events");
    const folder = cwd();
    if (!Array.isArray(events) || folder === undefined) return;
    for (const event of events) {
      if (!isRecord(event) || typeof event["seq"] !== "number" || event["seq"] <= seen) continue;
      seen = event["seq"];
      noteRewind(root, folder, event);
    }
  };
  store.on("change:events", onEvents);
  return () => store.off("change:events", onEvents);
}
