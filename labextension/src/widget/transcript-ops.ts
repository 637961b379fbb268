// The incremental transcript operations the Python AgentWidget sends instead of re-syncing the
// whole `events` list: `append` (new events), `delta` (streamed text coalesced into the last
// message_delta) and `update` (a call's newer tool_update in its previous one's place). All are
// idempotent, so applying one twice, or after a full sync that
// already contains it, changes nothing.
import { isFiniteNumber, isRecord, isString, type JsonRecord } from "../render/guards";

export interface AppendOp {
  readonly type: "append";
  readonly events: readonly JsonRecord[];
  readonly max_events: number;
}

export interface DeltaOp {
  readonly type: "delta";
  readonly seq: number;
  readonly delta: string;
  /** UTF-16 length of the coalesced delta after this one is added */
  readonly length: number;
}

/** The `tool_update` kept at `seq` now holds a newer partial state of its call. */
export interface UpdateOp {
  readonly type: "update";
  readonly seq: number;
  readonly event: JsonRecord;
}

export type TranscriptOp = AppendOp | DeltaOp | UpdateOp;

export function asTranscriptOp(message: unknown): TranscriptOp | null {
  if (!isRecord(message)) return null;
  if (
    message["type"] === "append" &&
    Array.isArray(message["events"]) &&
    isFiniteNumber(message["max_events"])
  ) {
    const events = message["events"].filter(isRecord);
    return { type: "append", events, max_events: message["max_events"] };
  }
  if (
    message["type"] === "delta" &&
    isFiniteNumber(message["seq"]) &&
    isString(message["delta"]) &&
    isFiniteNumber(message["length"])
  ) {
    return {
      type: "delta",
      seq: message["seq"],
      delta: message["delta"],
      length: message["length"],
    };
  }
  if (
    message["type"] === "update" &&
    isFiniteNumber(message["seq"]) &&
    isRecord(message["event"]) &&
    message["event"]["type"] === "tool_update"
  ) {
    return { type: "update", seq: message["seq"], event: message["event"] };
  }
  return null;
}

/** The events after `op`, or null when it changes nothing (already applied, or out of step). */
export function applyOp(events: readonly unknown[], op: TranscriptOp): unknown[] | null {
  if (op.type === "append") return applyAppend(events, op);
  return op.type === "delta" ? applyDelta(events, op) : applyUpdate(events, op);
}

function applyUpdate(events: readonly unknown[], op: UpdateOp): unknown[] | null {
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const event = events[index];
    if (seqOf(event) !== op.seq) continue;
    if (!isRecord(event) || event["type"] !== "tool_update") return null;
    if (event["tool_call_id"] !== op.event["tool_call_id"]) return null;
    const next = [...events];
    next[index] = { ...op.event, seq: op.seq };
    return next;
  }
  return null;
}

function seqOf(event: unknown): number {
  return isRecord(event) && isFiniteNumber(event["seq"]) ? event["seq"] : -1;
}

function applyAppend(events: readonly unknown[], op: AppendOp): unknown[] | null {
  const last = events.length > 0 ? seqOf(events[events.length - 1]) : -1;
  const fresh = op.events.filter((event) => seqOf(event) > last);
  if (fresh.length === 0) return null;
  const next = [...events, ...fresh];
  const cap = Math.max(1, Math.floor(op.max_events));
  return next.length > cap ? next.slice(next.length - cap) : next;
}

function applyDelta(events: readonly unknown[], op: DeltaOp): unknown[] | null {
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const event = events[index];
    if (seqOf(event) !== op.seq) continue;
    if (!isRecord(event) || event["type"] !== "message_delta" || !isString(event["delta"]))
      return null;
    if (event["delta"].length !== op.length - op.delta.length) return null;
    const next = [...events];
    next[index] = { ...event, delta: event["delta"] + op.delta };
    return next;
  }
  return null;
}
