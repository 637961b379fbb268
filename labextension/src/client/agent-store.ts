// AgentStore: one agent's state as a client holds it, built from the event stream and the
// `snapshot` replies of attach/sync (PROTOCOL.md §4, §6). Events are idempotent by seq, batches
// are unpacked, streamed deltas of one run coalesce into one event, a running tool keeps only its
// newest `tool_update`, and a jump in seq is reported as the range to `sync`. The store also
// speaks the slice of anywidget's model the agent view reads (get/on/off/send), so the Lab views
// reuse the notebook widget's view unchanged.
import { isFiniteNumber, isRecord, isString, type JsonRecord } from "../render/guards";
import type { Listener, WidgetModel } from "../widget/model";

export const MAX_EVENTS = 5000;
const LATEST_ONLY = new Set(["status", "usage"]);
const DELTA_KEYS = ["type", "turn_id", "channel", "tool_call_id"] as const;

export interface SeqRange {
  /** last seq held before the gap */
  readonly since: number;
  /** last seq missing */
  readonly until: number;
}

export interface Snapshot {
  readonly status: string;
  readonly mode: string;
  readonly model: string;
  readonly last_seq: number;
  readonly pending_permissions: readonly JsonRecord[];
  readonly pending_ui: readonly JsonRecord[];
  readonly events: readonly unknown[];
  readonly has_more: boolean;
}

export function asSnapshot(value: unknown): Snapshot | null {
  if (!isRecord(value) || value["type"] !== "snapshot") return null;
  if (!Array.isArray(value["events"]) || !isFiniteNumber(value["last_seq"])) return null;
  const records = (key: string): JsonRecord[] =>
    Array.isArray(value[key]) ? (value[key] as unknown[]).filter(isRecord) : [];
  const text = (key: string): string => (isString(value[key]) ? value[key] : "");
  return {
    status: text("status"),
    mode: text("mode"),
    model: text("model"),
    last_seq: value["last_seq"],
    pending_permissions: records("pending_permissions"),
    pending_ui: records("pending_ui"),
    events: value["events"],
    has_more: value["has_more"] === true,
  };
}

/** The events one IOPub message carries: one event, or the members of an `event_batch`. */
export function unpack(data: unknown): JsonRecord[] {
  if (!isRecord(data)) return [];
  if (data["type"] === "event_batch")
    return Array.isArray(data["events"]) ? data["events"].filter(isRecord) : [];
  return [data];
}

/** Equal as JSON values (state is plain data from the wire). */
function same(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

function seqOf(event: JsonRecord): number {
  return isFiniteNumber(event["seq"]) ? event["seq"] : -1;
}

export class AgentStore implements WidgetModel {
  /** the highest seq seen (live or replayed); -1 before anything */
  lastSeq = -1;
  private events: JsonRecord[] = [];
  private draft: JsonRecord[] | null = null;
  private readonly seen = new Set<number>();
  private readonly latest = new Map<string, number>();
  private readonly state = new Map<string, unknown>([
    // not "idle" until the agent said so: a prompt may be waiting (the snapshot tells)
    ["status", "attaching"],
    ["mode", ""],
    ["modes", ["build", "plan"]],
    ["model", ""],
    ["demo", false],
    ["diagnostics", []],
    ["usage", {}],
    ["pending", []],
    ["pending_ui", []],
    ["clients", null],
    ["title", ""],
    ["goal", ""],
    ["todos", []],
    ["steers", {}],
  ]);
  private readonly listeners = new Map<string, Set<Listener>>();
  private changed = new Set<string>();
  private sender: ((command: object) => void) | null = null;

  constructor(
    readonly clientId: string,
    label = "",
  ) {
    this.state.set("client_id", clientId);
    this.state.set("client_label", label);
  }

  // ------------------------------------------------------------ events in

  /** Applies live events (a batch unpacked); returns the gap to sync, if the stream skipped. */
  applyLive(events: readonly JsonRecord[]): SeqRange | null {
    let since: number | null = null;
    let until = -1;
    for (const event of events) {
      const seq = seqOf(event);
      if (seq < 0) continue;
      if (this.lastSeq >= 0 && seq > this.lastSeq + 1) {
        since ??= this.lastSeq; // one sync covers every hole of the batch
        until = seq - 1;
      }
      this.add(event);
    }
    this.flush();
    return since === null ? null : { since, until };
  }

  /** A snapshot page: its events, then its state (which wins over older events). */
  applySnapshot(snapshot: Snapshot): void {
    for (const event of snapshot.events) if (isRecord(event)) this.add(event);
    if (snapshot.status) this.put("status", snapshot.status);
    if (snapshot.mode) this.put("mode", snapshot.mode);
    if (snapshot.model) this.put("model", snapshot.model);
    this.put("pending", [...snapshot.pending_permissions]);
    this.put("pending_ui", [...snapshot.pending_ui]);
    // a page with more to come must not claim the newest seq: a re-attach mid-paging would skip
    if (!snapshot.has_more) this.lastSeq = Math.max(this.lastSeq, snapshot.last_seq);
    this.flush();
  }

  /** Marks the agent as gone (killed or dead): nothing is pending any more. */
  setStopped(status = "stopped"): void {
    this.put("status", status);
    this.put("pending", []);
    this.put("pending_ui", []);
    this.flush();
  }

  private add(event: JsonRecord): void {
    const seq = seqOf(event);
    const type = event["type"];
    if (seq < 0 || !isString(type) || this.seen.has(seq)) return;
    this.seen.add(seq);
    this.lastSeq = Math.max(this.lastSeq, seq);
    if (LATEST_ONLY.has(type)) return this.latestOnly(type, seq, event);
    this.track(type, event);
    if (type === "message_delta" && this.coalesce(event)) return;
    if ((type === "tool_update" || type === "tool_result") && !this.supersede(type, event)) return;
    this.insert(event, seq);
  }

  /** A call keeps only its newest `tool_update`, and none once its `tool_result` is in (a
   * chatty cell must not fill the transcript). False when the event itself is not wanted. */
  private supersede(type: string, event: JsonRecord): boolean {
    const id = event["tool_call_id"];
    if (!isString(id)) return true;
    const events = this.draft ?? this.events;
    const seq = seqOf(event);
    const stale: number[] = [];
    for (let i = events.length - 1; i >= 0; i -= 1) {
      const other = events[i] as JsonRecord;
      if (other["tool_call_id"] !== id) continue;
      if (other["type"] === "tool_result" && type === "tool_update") return false;
      if (other["type"] === "tool_update") {
        if (type === "tool_update" && seqOf(other) > seq) return false; // a newer one is in
        stale.push(i);
      }
    }
    if (stale.length === 0) return true;
    const draft = this.editable();
    for (const i of stale) draft.splice(i, 1); // descending indices: each splice keeps the rest
    return true;
  }

  private latestOnly(type: string, seq: number, event: JsonRecord): void {
    if (seq <= (this.latest.get(type) ?? -1)) return; // a replayed older one never wins
    this.latest.set(type, seq);
    if (type === "usage") {
      const { type: _t, agent_id: _a, seq: _s, ts: _ts, ...figures } = event;
      return this.put("usage", figures);
    }
    for (const key of ["status", "mode", "model"])
      if (isString(event[key])) this.put(key, event[key]);
    this.put("demo", event["demo"] === true);
    const notes = event["diagnostics"];
    this.put("diagnostics", Array.isArray(notes) ? notes.filter(isString) : []);
    if (isRecord(event["clients"])) this.put("clients", event["clients"]);
    if (isString(event["title"])) this.put("title", event["title"]);
    this.put("goal", isString(event["goal"]) ? event["goal"] : "");
    this.put("todos", Array.isArray(event["todos"]) ? event["todos"].filter(isRecord) : []);
  }

  private track(type: string, event: JsonRecord): void {
    const id = event["request_id"];
    const without = (key: string): JsonRecord[] =>
      (this.state.get(key) as JsonRecord[]).filter((r) => r["request_id"] !== id);
    if (type === "permission_request") this.put("pending", [...without("pending"), event]);
    else if (type === "permission_resolved") this.put("pending", without("pending"));
    else if (type === "ui_request" && event["ui"] !== "notify")
      this.put("pending_ui", [...without("pending_ui"), event]);
    else if (type === "ui_resolved") this.put("pending_ui", without("pending_ui"));
    else if (type === "steer_receipt" && isString(event["steer_id"])) {
      // steer_id → its newest receipt, so a view can show what became of a steer it sent
      const steers = this.state.get("steers") as Record<string, JsonRecord>;
      const known = steers[event["steer_id"]];
      if (known === undefined || seqOf(known) < seqOf(event))
        this.put("steers", { ...steers, [event["steer_id"]]: event });
    } else if (type === "restarted") {
      this.put("pending", []); // the old process's questions died with it
      this.put("pending_ui", []);
    }
  }

  private coalesce(event: JsonRecord): boolean {
    const events = this.draft ?? this.events;
    const last = events[events.length - 1];
    if (!last || seqOf(last) > seqOf(event)) return false;
    if (DELTA_KEYS.some((key) => (last[key] ?? null) !== (event[key] ?? null))) return false;
    if (!isString(last["delta"]) || !isString(event["delta"])) return false;
    const draft = this.editable();
    draft[draft.length - 1] = { ...last, delta: last["delta"] + event["delta"] };
    return true;
  }

  private insert(event: JsonRecord, seq: number): void {
    const draft = this.editable();
    let index = draft.length;
    while (index > 0 && seqOf(draft[index - 1] as JsonRecord) > seq) index -= 1;
    draft.splice(index, 0, event);
  }

  /** The events list this batch changes: copied once per batch, not once per event (a long
   * transcript streaming deltas would otherwise be copied for every delta). */
  private editable(): JsonRecord[] {
    if (this.draft === null) {
      this.draft = this.events.slice();
      this.changed.add("events");
    }
    return this.draft;
  }

  private put(key: string, value: unknown): void {
    if (same(this.state.get(key), value)) return;
    this.state.set(key, value);
    this.changed.add(key);
  }

  private flush(): void {
    if (this.draft !== null) {
      const draft = this.draft;
      this.draft = null;
      this.events = draft.length > MAX_EVENTS ? draft.slice(draft.length - MAX_EVENTS) : draft;
    }
    const changed = this.changed;
    this.changed = new Set();
    for (const key of changed) this.emit(`change:${key}`);
  }

  // ------------------------------------------------------------ the model the views read

  get(key: string): unknown {
    return key === "events" ? this.events : this.state.get(key);
  }

  set(key: string, value: unknown): void {
    if (key === "events") this.events = Array.isArray(value) ? value.filter(isRecord) : [];
    else this.state.set(key, value);
    this.emit(`change:${key}`);
  }

  on(event: string, callback: Listener): void {
    const set = this.listeners.get(event) ?? new Set<Listener>();
    set.add(callback);
    this.listeners.set(event, set);
  }

  off(event?: string | null, callback?: Listener | null): void {
    if (!event) return this.listeners.clear();
    if (!callback) return void this.listeners.delete(event);
    this.listeners.get(event)?.delete(callback);
  }

  /** Where the views' commands go (the kernel connection); replies come back via `reply`. */
  connect(sender: ((command: object) => void) | null): void {
    this.sender = sender;
  }

  send(content: object): void {
    if (this.sender) return this.sender(content);
    const id = isRecord(content) && isString(content["id"]) ? content["id"] : null;
    const command = isRecord(content) && isString(content["type"]) ? content["type"] : "command";
    this.reply({
      type: "reply",
      command_id: id,
      command,
      ok: false,
      message: "not connected to the agent",
      data: {},
    });
  }

  /** A `reply` (or any message) from the agent for the views (`msg:custom`). */
  reply(message: unknown): void {
    this.emit("msg:custom", message);
  }

  emit(event: string, ...args: unknown[]): void {
    for (const callback of [...(this.listeners.get(event) ?? [])]) callback(...args);
  }
}
