import { describe, expect, it } from "vitest";
import {
  AgentStore,
  MAX_EVENTS,
  asSnapshot,
  unpack,
  type Snapshot,
} from "../../labextension/src/client/agent-store";

type Rec = Record<string, unknown>;

/** An event with an explicit seq (the store is all about seqs, so no shared counter here). */
function at(seq: number, type: string, fields: Rec = {}): Rec {
  return {
    type,
    agent_id: "agent-test",
    seq,
    ts: 1_700_000_000 + seq,
    ...fields,
  };
}

const text = (seq: number, body = `text ${seq}`): Rec =>
  at(seq, "message_complete", {
    turn_id: "t",
    entry_id: `e${seq}`,
    message: { role: "assistant", content: [{ type: "text", text: body }] },
  });

const delta = (seq: number, piece: string, fields: Rec = {}): Rec =>
  at(seq, "message_delta", {
    turn_id: "t",
    channel: "text",
    delta: piece,
    tool_call_id: null,
    ...fields,
  });

const status = (seq: number, fields: Rec = {}): Rec =>
  at(seq, "status", {
    status: "idle",
    mode: "build",
    model: "claude-x",
    demo: false,
    ...fields,
  });

const usageFigures = (n: number): Rec => ({
  turn_id: "t",
  request: {
    input_tokens: n,
    output_tokens: n,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    cost_usd: 0,
  },
  turn: {
    input_tokens: n,
    output_tokens: n,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    cost_usd: 0,
  },
  total: {
    input_tokens: n,
    output_tokens: n,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    cost_usd: 0,
  },
  context_tokens: n * 10,
  context_window: 200_000,
});

const permission = (seq: number, id: string): Rec =>
  at(seq, "permission_request", {
    request_id: id,
    tool: "bash",
    input: { command: "make" },
    prompt: "Run make?",
    suggested_rule: "bash(make)",
    read_only: false,
    tool_call_id: null,
    turn_id: "t",
  });

const resolved = (seq: number, id: string): Rec =>
  at(seq, "permission_resolved", {
    request_id: id,
    decision: "allow",
    decided_by: "alice",
    source: "client",
  });

const uiRequest = (seq: number, id: string, ui = "confirm"): Rec =>
  at(seq, "ui_request", {
    request_id: id,
    ui,
    title: "Sure?",
    message: "Really?",
    options: [],
  });

function snapshot(fields: Partial<Snapshot> = {}): Snapshot {
  return {
    status: "idle",
    mode: "build",
    model: "claude-x",
    last_seq: -1,
    pending_permissions: [],
    pending_ui: [],
    events: [],
    has_more: false,
    ...fields,
  };
}

const seqs = (store: AgentStore): unknown[] =>
  (store.get("events") as Rec[]).map((e) => e["seq"]);

const KEYS = [
  "events",
  "status",
  "mode",
  "modes",
  "model",
  "demo",
  "usage",
  "pending",
  "pending_ui",
  "clients",
  "client_id",
  "client_label",
];

/** Records every `change:<key>` the store fires, in order. */
function recordChanges(store: AgentStore): string[] {
  const fired: string[] = [];
  for (const key of KEYS) store.on(`change:${key}`, () => fired.push(key));
  return fired;
}

describe("unpack", () => {
  it("returns a lone event as a one-event list", () => {
    const event = text(3);
    expect(unpack(event)).toEqual([event]);
  });

  it("unpacks an event_batch in its order, dropping members that are not records", () => {
    const members = [text(4), delta(5, "a"), delta(6, "b")];
    expect(
      unpack({
        type: "event_batch",
        events: [members[0], 7, null, members[1], members[2]],
      }),
    ).toEqual(members);
  });

  it("returns nothing for data that is not an event", () => {
    expect(unpack(null)).toEqual([]);
    expect(unpack("text")).toEqual([]);
    expect(unpack([text(1)])).toEqual([]);
    expect(unpack({ type: "event_batch", events: "nope" })).toEqual([]);
  });
});

describe("asSnapshot", () => {
  it("reads a whole snapshot reply", () => {
    const request = permission(2, "r1");
    const ui = uiRequest(3, "u1");
    expect(
      asSnapshot({
        type: "snapshot",
        command_id: "c1",
        agent_id: "agent-test",
        status: "streaming",
        mode: "plan",
        model: "claude-x",
        last_seq: 9,
        pending_permissions: [request, "junk"],
        pending_ui: [ui],
        events: [text(8), text(9)],
        has_more: true,
      }),
    ).toEqual({
      status: "streaming",
      mode: "plan",
      model: "claude-x",
      last_seq: 9,
      pending_permissions: [request],
      pending_ui: [ui],
      events: [text(8), text(9)],
      has_more: true,
    });
  });

  it("defaults missing text, pending lists and has_more", () => {
    expect(asSnapshot({ type: "snapshot", last_seq: -1, events: [] })).toEqual({
      status: "",
      mode: "",
      model: "",
      last_seq: -1,
      pending_permissions: [],
      pending_ui: [],
      events: [],
      has_more: false,
    });
  });

  it("refuses what is not a snapshot", () => {
    expect(
      asSnapshot({ type: "reply", ok: true, last_seq: 1, events: [] }),
    ).toBeNull();
    expect(asSnapshot({ type: "snapshot", events: [] })).toBeNull();
    expect(
      asSnapshot({ type: "snapshot", last_seq: 1, events: {} }),
    ).toBeNull();
    expect(
      asSnapshot({ type: "snapshot", last_seq: Number.NaN, events: [] }),
    ).toBeNull();
    expect(asSnapshot(null)).toBeNull();
  });
});

describe("AgentStore: events by seq", () => {
  it("starts empty, with the client's id and label", () => {
    const store = new AgentStore("client-1", "alice · Tab 3f2a");
    expect(store.lastSeq).toBe(-1);
    expect(store.get("events")).toEqual([]);
    expect(store.get("status")).toBe("attaching"); // never "idle" before the agent says so
    expect(store.get("pending")).toEqual([]);
    expect(store.get("pending_ui")).toEqual([]);
    expect(store.get("client_id")).toBe("client-1");
    expect(store.get("client_label")).toBe("alice · Tab 3f2a");
  });

  it("reports no gap for the very first event, whatever its seq, nor for consecutive seqs", () => {
    const store = new AgentStore("c");
    expect(store.applyLive([text(40)])).toBeNull();
    expect(store.applyLive([text(41)])).toBeNull();
    expect(store.applyLive([text(42), text(43)])).toBeNull();
    expect(seqs(store)).toEqual([40, 41, 42, 43]);
    expect(store.lastSeq).toBe(43);
  });

  it("ignores a duplicate seq, even with another payload", () => {
    const store = new AgentStore("c");
    store.applyLive([text(0), text(1, "the original")]);
    const before = store.get("events");
    const fired = recordChanges(store);
    expect(store.applyLive([text(1, "a replacement")])).toBeNull();
    expect(store.get("events")).toBe(before);
    expect(store.get("events")).toEqual([text(0), text(1, "the original")]);
    expect(fired).toEqual([]);
  });

  it("changes nothing when a page it has already seen is replayed", () => {
    const store = new AgentStore("c");
    const page = [
      text(0),
      permission(1, "r1"),
      text(2),
      resolved(3, "r1"),
      text(4),
    ];
    store.applyLive(page);
    const before = store.get("events");
    const fired: string[] = [];
    store.on("change:events", () => fired.push("events"));
    store.applySnapshot(snapshot({ last_seq: 4, events: page }));
    store.applyLive(page);
    expect(store.get("events")).toBe(before);
    expect(store.get("events")).toEqual(page);
    expect(store.lastSeq).toBe(4);
    expect(fired).toEqual([]);
  });

  it("applies an event_batch in order", () => {
    const store = new AgentStore("c");
    const batch = { type: "event_batch", events: [text(0), text(1), text(2)] };
    expect(store.applyLive(unpack(batch))).toBeNull();
    expect(store.get("events")).toEqual([text(0), text(1), text(2)]);
  });

  it("skips events without a usable seq or type", () => {
    const store = new AgentStore("c");
    store.applyLive([
      { type: "message_complete", agent_id: "a", ts: 1 },
      { ...text(0), seq: "0" },
      { ...text(1), type: 7 },
      text(2),
    ]);
    expect(store.get("events")).toEqual([text(2)]);
  });

  it("returns the gap range when a live event's seq jumps, and still applies the event", () => {
    const store = new AgentStore("c");
    store.applyLive([text(0), text(1), text(2)]);
    expect(store.applyLive([text(5)])).toEqual({ since: 2, until: 4 });
    expect(seqs(store)).toEqual([0, 1, 2, 5]);
    expect(store.lastSeq).toBe(5);
    expect(store.applyLive([text(6)])).toBeNull();
  });

  it("reports a gap inside a batch", () => {
    const store = new AgentStore("c");
    store.applyLive([text(0)]);
    expect(
      store.applyLive(
        unpack({ type: "event_batch", events: [text(1), text(4), text(5)] }),
      ),
    ).toEqual({
      since: 1,
      until: 3,
    });
    expect(seqs(store)).toEqual([0, 1, 4, 5]);
  });

  it("asks for every seq missing when one batch skips twice", () => {
    // §6: each event with seq > last + 1 needs a sync; the one range returned must cover both holes
    const store = new AgentStore("c");
    store.applyLive([text(0), text(1), text(2)]);
    expect(store.applyLive([text(5), text(9)])).toEqual({ since: 2, until: 8 });
  });

  it("reports a gap after a snapshot, from the snapshot's last seq", () => {
    const store = new AgentStore("c");
    store.applySnapshot(
      snapshot({ last_seq: 10, events: [text(9), text(10)] }),
    );
    expect(store.applyLive([text(11)])).toBeNull();
    expect(store.applyLive([text(14)])).toEqual({ since: 11, until: 13 });
  });

  it("inserts the events a sync brings in seq order", () => {
    const store = new AgentStore("c");
    store.applyLive([text(0), text(1)]);
    expect(store.applyLive([text(5), text(6)])).toEqual({ since: 1, until: 4 });
    store.applySnapshot(
      snapshot({ last_seq: 6, events: [text(2), text(3), text(4)] }),
    );
    expect(store.get("events")).toEqual(
      [0, 1, 2, 3, 4, 5, 6].map((s) => text(s)),
    );
    expect(store.lastSeq).toBe(6);
  });

  it("inserts a late live event in seq order", () => {
    const store = new AgentStore("c");
    store.applyLive([text(0), text(2)]);
    expect(store.applyLive([text(1)])).toBeNull();
    expect(seqs(store)).toEqual([0, 1, 2]);
  });

  it("holds at most MAX_EVENTS events, the newest", () => {
    const store = new AgentStore("c");
    const many = Array.from({ length: MAX_EVENTS + 10 }, (_, i) => text(i));
    store.applyLive(many);
    const events = store.get("events") as Rec[];
    expect(events).toHaveLength(MAX_EVENTS);
    expect(events[0]).toEqual(text(10));
    expect(events[events.length - 1]).toEqual(text(MAX_EVENTS + 9));
    expect(store.lastSeq).toBe(MAX_EVENTS + 9);
    // an evicted seq replayed does not come back, and the cap holds with new events
    store.applyLive([text(3), text(MAX_EVENTS + 10)]);
    const after = store.get("events") as Rec[];
    expect(after).toHaveLength(MAX_EVENTS);
    expect(after[0]).toEqual(text(11));
    expect(after[after.length - 1]).toEqual(text(MAX_EVENTS + 10));
  });
});

describe("AgentStore: streamed deltas", () => {
  it("coalesces the deltas of one turn and channel into one event, at the first seq", () => {
    const store = new AgentStore("c");
    store.applyLive([text(0)]);
    store.applyLive([delta(1, "Hel")]);
    store.applyLive([delta(2, "lo ")]);
    store.applyLive(
      unpack({
        type: "event_batch",
        events: [delta(3, "wor"), delta(4, "ld")],
      }),
    );
    expect(store.get("events")).toEqual([text(0), delta(1, "Hello world")]);
    expect(store.lastSeq).toBe(4);
    // a replay of a coalesced delta's seq adds nothing
    store.applyLive([delta(3, "wor")]);
    expect(store.get("events")).toEqual([text(0), delta(1, "Hello world")]);
    // and the next seq is not a gap
    expect(store.applyLive([text(5)])).toBeNull();
  });

  it("keeps deltas of another channel, tool call or turn apart", () => {
    const store = new AgentStore("c");
    store.applyLive([
      delta(0, "hmm", { channel: "thinking" }),
      delta(1, " ok", { channel: "thinking" }),
      delta(2, "Sure"),
      delta(3, '{"a"', { channel: "tool_call", tool_call_id: "c1" }),
      delta(4, ":1}", { channel: "tool_call", tool_call_id: "c1" }),
      delta(5, '{"b"', { channel: "tool_call", tool_call_id: "c2" }),
      delta(6, "Next", { turn_id: "t2" }),
    ]);
    expect(store.get("events")).toEqual([
      delta(0, "hmm ok", { channel: "thinking" }),
      delta(2, "Sure"),
      delta(3, '{"a":1}', { channel: "tool_call", tool_call_id: "c1" }),
      delta(5, '{"b"', { channel: "tool_call", tool_call_id: "c2" }),
      delta(6, "Next", { turn_id: "t2" }),
    ]);
  });

  it("does not join deltas across another event", () => {
    const store = new AgentStore("c");
    store.applyLive([delta(0, "a"), text(1), delta(2, "b")]);
    expect(store.get("events")).toEqual([
      delta(0, "a"),
      text(1),
      delta(2, "b"),
    ]);
  });
});

describe("AgentStore: status and usage keep their latest values", () => {
  it("takes status, mode, model, demo and clients from a status event, outside the transcript", () => {
    const store = new AgentStore("c");
    store.applyLive([
      status(0, {
        status: "streaming",
        mode: "plan",
        model: "claude-y",
        demo: true,
        clients: { interactive: 2, observer: 1 },
      }),
    ]);
    expect(store.get("events")).toEqual([]);
    expect(store.get("status")).toBe("streaming");
    expect(store.get("mode")).toBe("plan");
    expect(store.get("model")).toBe("claude-y");
    expect(store.get("demo")).toBe(true);
    expect(store.get("clients")).toEqual({ interactive: 2, observer: 1 });
    expect(store.lastSeq).toBe(0);
  });

  it("never lets an older status override a newer one", () => {
    const store = new AgentStore("c");
    store.applyLive([
      status(0, { status: "idle" }),
      status(5, { status: "streaming", mode: "plan" }),
    ]);
    store.applyLive([status(3, { status: "error", mode: "build" })]); // late
    expect(store.get("status")).toBe("streaming");
    expect(store.get("mode")).toBe("plan");
    // a replayed page with older status, in a snapshot that names no status of its own
    store.applySnapshot(
      snapshot({
        status: "",
        mode: "",
        model: "",
        last_seq: 5,
        events: [status(4)],
      }),
    );
    expect(store.get("status")).toBe("streaming");
    expect(store.get("mode")).toBe("plan");
  });

  it("keeps only the latest usage figures, without the event's envelope", () => {
    const store = new AgentStore("c");
    store.applyLive([
      at(0, "usage", usageFigures(1)),
      at(2, "usage", usageFigures(3)),
    ]);
    expect(store.get("usage")).toEqual(usageFigures(3));
    store.applyLive([at(1, "usage", usageFigures(2))]); // late
    expect(store.get("usage")).toEqual(usageFigures(3));
    store.applySnapshot(
      snapshot({ last_seq: 2, events: [at(1, "usage", usageFigures(2))] }),
    );
    expect(store.get("usage")).toEqual(usageFigures(3));
    expect(store.get("events")).toEqual([]);
  });

  it("lets the snapshot's own status win over the events it carries", () => {
    const store = new AgentStore("c");
    store.applySnapshot(
      snapshot({
        status: "waiting_for_permission",
        mode: "plan",
        model: "claude-z",
        last_seq: 3,
        events: [status(1, { status: "streaming" }), text(3)],
      }),
    );
    expect(store.get("status")).toBe("waiting_for_permission");
    expect(store.get("mode")).toBe("plan");
    expect(store.get("model")).toBe("claude-z");
  });
});

describe("AgentStore: pending requests", () => {
  it("tracks permission requests until they are resolved", () => {
    const store = new AgentStore("c");
    store.applyLive([permission(0, "r1"), permission(1, "r2")]);
    expect(store.get("pending")).toEqual([
      permission(0, "r1"),
      permission(1, "r2"),
    ]);
    store.applyLive([resolved(2, "r1")]);
    expect(store.get("pending")).toEqual([permission(1, "r2")]);
    // the request and its resolution stay in the transcript
    expect(seqs(store)).toEqual([0, 1, 2]);
  });

  it("replaces a repeated request for the same id rather than listing it twice", () => {
    const store = new AgentStore("c");
    store.applyLive([permission(0, "r1"), permission(1, "r1")]);
    expect(store.get("pending")).toEqual([permission(1, "r1")]);
  });

  it("tracks ui requests until they are resolved, but never a notify", () => {
    const store = new AgentStore("c");
    store.applyLive([
      uiRequest(0, "u1"),
      uiRequest(1, "u2", "notify"),
      uiRequest(2, "u3", "select"),
    ]);
    expect(store.get("pending_ui")).toEqual([
      uiRequest(0, "u1"),
      uiRequest(2, "u3", "select"),
    ]);
    store.applyLive([
      at(3, "ui_resolved", {
        request_id: "u1",
        value: true,
        decided_by: "bob",
      }),
    ]);
    expect(store.get("pending_ui")).toEqual([uiRequest(2, "u3", "select")]);
    expect(store.get("pending")).toEqual([]);
  });

  it("forgets every pending request when the agent restarted", () => {
    const store = new AgentStore("c");
    store.applyLive([permission(0, "r1"), uiRequest(1, "u1")]);
    store.applyLive([at(2, "restarted", { lost: [], entries: 4 })]);
    expect(store.get("pending")).toEqual([]);
    expect(store.get("pending_ui")).toEqual([]);
  });

  it("takes the pending lists of a snapshot as they are", () => {
    const store = new AgentStore("c");
    store.applyLive([permission(0, "r1"), uiRequest(1, "u1")]);
    const r2 = permission(5, "r2");
    const u2 = uiRequest(6, "u2");
    store.applySnapshot(
      snapshot({ last_seq: 6, pending_permissions: [r2], pending_ui: [u2] }),
    );
    expect(store.get("pending")).toEqual([r2]);
    expect(store.get("pending_ui")).toEqual([u2]);
    // a replayed request that the snapshot says is settled does not come back after the snapshot
    store.applySnapshot(
      snapshot({
        last_seq: 6,
        events: [permission(2, "r0")],
        pending_permissions: [r2],
      }),
    );
    expect(store.get("pending")).toEqual([r2]);
  });

  it("setStopped says stopped and clears what was pending, keeping the transcript", () => {
    const store = new AgentStore("c");
    store.applyLive([text(0), permission(1, "r1"), uiRequest(2, "u1")]);
    const fired = recordChanges(store);
    store.setStopped();
    expect(store.get("status")).toBe("stopped");
    expect(store.get("pending")).toEqual([]);
    expect(store.get("pending_ui")).toEqual([]);
    expect(seqs(store)).toEqual([0, 1, 2]);
    expect([...fired].sort()).toEqual(["pending", "pending_ui", "status"]);
    store.setStopped("error");
    expect(store.get("status")).toBe("error");
  });
});

describe("AgentStore: change events", () => {
  it("fires change:events once for a batch of transcript events, and nothing else", () => {
    const store = new AgentStore("c");
    const fired = recordChanges(store);
    store.applyLive([text(0), text(1), delta(2, "a"), delta(3, "b")]);
    expect(fired).toEqual(["events"]);
  });

  it("fires change:usage alone for a usage event", () => {
    const store = new AgentStore("c");
    const fired = recordChanges(store);
    store.applyLive([at(0, "usage", usageFigures(1))]);
    expect(fired).toEqual(["usage"]);
  });

  it("fires change:events and change:pending for a permission request", () => {
    const store = new AgentStore("c");
    const fired = recordChanges(store);
    store.applyLive([permission(0, "r1")]);
    expect([...fired].sort()).toEqual(["events", "pending"]);
    fired.length = 0;
    store.applyLive([uiRequest(1, "u1")]);
    expect([...fired].sort()).toEqual(["events", "pending_ui"]);
  });

  it("fires nothing for a late status event that loses", () => {
    const store = new AgentStore("c");
    store.applyLive([status(5, { status: "streaming" })]);
    const fired = recordChanges(store);
    store.applyLive([status(3, { status: "idle" })]);
    expect(fired).toEqual([]);
  });

  it("fires only change:status when a status event changes only the status", () => {
    const store = new AgentStore("c");
    store.applyLive([status(0, { status: "idle" })]);
    const fired = recordChanges(store);
    store.applyLive([status(1, { status: "streaming" })]);
    expect(fired).toEqual(["status"]);
  });

  it("fires nothing when a snapshot repeats the state the store already holds", () => {
    const store = new AgentStore("c");
    const r1 = permission(0, "r1");
    store.applySnapshot(
      snapshot({
        status: "streaming",
        last_seq: 0,
        events: [r1],
        pending_permissions: [r1],
      }),
    );
    const fired = recordChanges(store);
    store.applySnapshot(
      snapshot({
        status: "streaming",
        last_seq: 0,
        events: [r1],
        pending_permissions: [r1],
      }),
    );
    expect(fired).toEqual([]);
  });

  it("set() replaces a key for the views and fires its change", () => {
    const store = new AgentStore("c");
    const fired = recordChanges(store);
    store.set("events", [text(0), "junk", text(1)]);
    store.set("modes", ["build"]);
    expect(store.get("events")).toEqual([text(0), text(1)]);
    expect(store.get("modes")).toEqual(["build"]);
    expect(fired).toEqual(["events", "modes"]);
  });

  it("off() stops a listener", () => {
    const store = new AgentStore("c");
    const fired: string[] = [];
    const listener = (): void => void fired.push("x");
    store.on("change:events", listener);
    store.off("change:events", listener);
    store.applyLive([text(0)]);
    expect(fired).toEqual([]);
  });
});

describe("AgentStore: send", () => {
  it("replies ok: false through msg:custom while nothing is connected", () => {
    const store = new AgentStore("c");
    const replies: unknown[] = [];
    store.on("msg:custom", (message) => replies.push(message));
    store.send({ type: "steer", id: "cmd-1", text: "faster" });
    store.send({ text: "no type, no id" });
    expect(replies).toEqual([
      {
        type: "reply",
        command_id: "cmd-1",
        command: "steer",
        ok: false,
        message: "not connected to the agent",
        data: {},
      },
      {
        type: "reply",
        command_id: null,
        command: "command",
        ok: false,
        message: "not connected to the agent",
        data: {},
      },
    ]);
  });

  it("hands commands to the connected sender, and replies again once disconnected", () => {
    const store = new AgentStore("c");
    const sent: object[] = [];
    const replies: unknown[] = [];
    store.on("msg:custom", (message) => replies.push(message));
    store.connect((command) => sent.push(command));
    store.send({ type: "abort", id: "a1" });
    expect(sent).toEqual([{ type: "abort", id: "a1" }]);
    expect(replies).toEqual([]);
    store.connect(null);
    store.send({ type: "abort", id: "a2" });
    expect(sent).toHaveLength(1);
    expect(replies).toEqual([
      {
        type: "reply",
        command_id: "a2",
        command: "abort",
        ok: false,
        message: "not connected to the agent",
        data: {},
      },
    ]);
  });
});
