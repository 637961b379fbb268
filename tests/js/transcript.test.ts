import { beforeEach, describe, expect, it } from "vitest";
import {
  applyOp,
  asTranscriptOp,
} from "../../labextension/src/widget/transcript-ops";
import {
  deriveItems,
  type Item,
  type Pending,
} from "../../labextension/src/widget/transcript-items";
import { ev, resetSeq } from "./helpers";

const NONE: Pending = { permissions: [], ui: [] };
const usage = {
  input_tokens: 0,
  output_tokens: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  cost_usd: 0,
};

beforeEach(resetSeq);

describe("transcript ops", () => {
  it("append adds newer events only and keeps the last max_events", () => {
    const a = ev("turn_start", { turn_id: "t", prompt: "p" });
    const b = ev("error", { code: "x", message: "m" });
    const c = ev("error", { code: "y", message: "n" });
    expect(
      applyOp([a], { type: "append", events: [a, b, c], max_events: 2 }),
    ).toEqual([b, c]);
    expect(
      applyOp([a, b], { type: "append", events: [a, b], max_events: 10 }),
    ).toBeNull();
  });

  it("delta extends the matching message_delta exactly once", () => {
    const d = ev("message_delta", {
      turn_id: "t",
      channel: "text",
      delta: "Hel",
      tool_call_id: null,
    });
    const op = {
      type: "delta",
      seq: d["seq"] as number,
      delta: "lo 😀",
      length: 8,
    } as const;
    const once = applyOp([d], op);
    expect(once).toEqual([{ ...d, delta: "Hello 😀" }]);
    expect(applyOp(once ?? [], op)).toBeNull();
    expect(applyOp([d], { ...op, length: 99 })).toBeNull();
    expect(applyOp([d], { ...op, seq: 42 })).toBeNull();
  });

  it("parses only well-formed messages", () => {
    expect(
      asTranscriptOp({
        type: "append",
        events: [{ seq: 1 }, "junk"],
        max_events: 5,
      }),
    ).toEqual({ type: "append", events: [{ seq: 1 }], max_events: 5 });
    expect(
      asTranscriptOp({ type: "delta", seq: "1", delta: "x", length: 1 }),
    ).toBeNull();
    expect(asTranscriptOp({ type: "reply", ok: true })).toBeNull();
    expect(asTranscriptOp("append")).toBeNull();
  });
});

const kinds = (items: Item[]): string[] => items.map((i) => i.kind);

describe("derived items", () => {
  it("streams text into one assistant bubble, then the completed message replaces it", () => {
    const events = [
      ev("turn_start", { turn_id: "t", prompt: "hi" }),
      ev("message_delta", {
        turn_id: "t",
        channel: "thinking",
        delta: "hmm",
        tool_call_id: null,
      }),
      ev("message_delta", {
        turn_id: "t",
        channel: "text",
        delta: "Hel",
        tool_call_id: null,
      }),
      ev("message_delta", {
        turn_id: "t",
        channel: "text",
        delta: "lo",
        tool_call_id: null,
      }),
    ];
    const streaming = deriveItems(events, NONE);
    expect(kinds(streaming)).toEqual(["user", "assistant"]);
    expect(streaming[1]).toMatchObject({
      text: "Hello",
      thinking: "hmm",
      streaming: true,
    });
    const done = deriveItems(
      [
        ...events,
        ev("message_complete", {
          turn_id: "t",
          entry_id: "e",
          message: {
            role: "assistant",
            content: [{ type: "text", text: "Hello!" }],
            model: null,
            stop_reason: "end_turn",
            usage: null,
          },
        }),
      ],
      NONE,
    );
    expect(done[1]).toMatchObject({
      key: streaming[1]?.key,
      text: "Hello!",
      thinking: "",
      streaming: false,
    });
    expect(done[1]?.sig).not.toBe(streaming[1]?.sig);
  });

  it("a tool card goes from streamed input to running, awaiting permission, done", () => {
    const start = [
      ev("turn_start", { turn_id: "t", prompt: "p" }),
      ev("message_delta", {
        turn_id: "t",
        channel: "tool_call",
        delta: '{"command":',
        tool_call_id: "c1",
      }),
    ];
    expect(deriveItems(start, NONE)[1]).toMatchObject({
      kind: "tool",
      status: "streaming",
      inputText: '{"command":',
    });
    const call = ev("tool_call", {
      turn_id: "t",
      call: {
        type: "tool_call",
        id: "c1",
        name: "bash",
        input: { command: "ls" },
      },
      read_only: false,
    });
    const request = ev("permission_request", {
      request_id: "r1",
      tool: "bash",
      input: { command: "ls" },
      prompt: "Run?",
      suggested_rule: null,
      read_only: false,
      tool_call_id: "c1",
      turn_id: "t",
    });
    const pending: Pending = { permissions: [request as never], ui: [] };
    const asking = deriveItems([...start, call, request], pending);
    expect(kinds(asking)).toEqual(["user", "tool", "permission"]);
    expect(asking[1]).toMatchObject({
      name: "bash",
      input: { command: "ls" },
      status: "awaiting_permission",
    });
    expect(asking[2]).toMatchObject({ open: true, resolved: null });
    const resolved = ev("permission_resolved", {
      request_id: "r1",
      decision: "allow",
      decided_by: "me",
      source: "client",
      reason: null,
      rule: null,
    });
    const result = ev("tool_result", {
      turn_id: "t",
      tool_call_id: "c1",
      name: "bash",
      entry_id: "e",
      result: { content: [], is_error: false, render: [], details: {} },
    });
    const done = deriveItems([...start, call, request, resolved, result], NONE);
    // the answered dialog folds into its tool card: one line saying who decided
    expect(kinds(done)).toEqual(["user", "tool"]);
    expect(done[1]).toMatchObject({
      status: "done",
      decision: { decided_by: "me", source: "client" },
    });
  });

  it("a denied call stays denied; an aborted turn marks unfinished tools", () => {
    const call = (id: string): Record<string, unknown> =>
      ev("tool_call", {
        turn_id: "t",
        call: { type: "tool_call", id, name: "edit", input: {} },
        read_only: false,
      });
    const events = [
      call("c1"),
      ev("permission_request", {
        request_id: "r1",
        tool: "edit",
        input: {},
        prompt: "",
        suggested_rule: null,
        read_only: false,
        tool_call_id: "c1",
        turn_id: "t",
      }),
      ev("permission_resolved", {
        request_id: "r1",
        decision: "deny",
        decided_by: "me",
        source: "client",
        reason: "no",
        rule: null,
      }),
      ev("tool_result", {
        turn_id: "t",
        tool_call_id: "c1",
        name: "edit",
        entry_id: "e",
        result: { content: [], is_error: true, render: [], details: {} },
      }),
      call("c2"),
      ev("turn_end", { turn_id: "t", reason: "aborted", usage, error: null }),
    ];
    const items = deriveItems(events, NONE);
    expect(
      items
        .filter((i) => i.kind === "tool")
        .map((i) => (i.kind === "tool" ? i.status : "")),
    ).toEqual(["denied", "aborted"]);
    expect(items.at(-1)).toMatchObject({
      kind: "notice",
      tone: "warn",
      text: "Turn ended: aborted",
    });
  });

  it("pending requests missing from the events still show, open", () => {
    const request = ev("permission_request", {
      request_id: "old",
      tool: "read",
      input: {},
      prompt: "",
      suggested_rule: null,
      read_only: true,
      tool_call_id: null,
      turn_id: null,
    });
    const items = deriveItems([], { permissions: [request as never], ui: [] });
    expect(items).toMatchObject([
      { kind: "permission", key: "perm:old", open: true },
    ]);
  });

  it("notices for errors, compaction and restarts; usage and status make no items", () => {
    const items = deriveItems(
      [
        ev("usage", {
          turn_id: null,
          request: usage,
          turn: usage,
          total: usage,
          context_tokens: 1,
          context_window: 2,
        }),
        ev("status", {
          status: "idle",
          mode: "build",
          model: "m",
          demo: false,
          message: null,
        }),
        ev("error", {
          code: "provider_error",
          message: "overloaded",
          turn_id: null,
          retryable: true,
        }),
        ev("compaction", {
          index: 1,
          entry_id: "e",
          tokens_before: 1000,
          tokens_after: 100,
          entries_folded: 9,
          reason: "threshold",
          compactor: "default",
        }),
        ev("restarted", { lost: ["a running bash"], entries: 40 }),
        { type: "brand_new_event", seq: 99 },
        { no: "type" },
      ],
      NONE,
    );
    expect(
      items.map((i) => (i.kind === "notice" ? [i.tone, i.text] : i.kind)),
    ).toEqual([
      ["error", "provider_error: overloaded (retryable)"],
      [
        "info",
        "Context compacted (threshold): 1000 → 100 tokens, 9 entries folded by default.",
      ],
      [
        "warn",
        "Agent restarted and reloaded 40 entries. Lost: a running bash.",
      ],
    ]);
  });
});
