import { beforeEach, describe, expect, it } from "vitest";
import { renderAgentView } from "../../labextension/src/widget/agent-view";
import { syncTranscript } from "../../labextension/src/widget/transcript-sync";
import { FakeModel, assertInert, ev, resetSeq } from "./helpers";

const usage = (input: number, output: number, cost: number) => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  cost_usd: cost,
});

function mount(initial: Record<string, unknown> = {}): {
  model: FakeModel;
  el: HTMLElement;
  cleanup: () => void;
} {
  const model = new FakeModel({
    events: [],
    pending: [],
    pending_ui: [],
    status: "idle",
    mode: "build",
    modes: ["build", "plan"],
    model: "claude-x",
    demo: false,
    usage: {},
    client_id: "",
    ...initial,
  });
  syncTranscript(model);
  const el = document.createElement("div");
  const cleanup = renderAgentView({ model, el });
  return { model, el, cleanup };
}

const permission = () =>
  ev("permission_request", {
    request_id: "r1",
    tool: "bash",
    input: { command: "make" },
    prompt: "Run make?",
    suggested_rule: "bash(make)",
    read_only: false,
    tool_call_id: null,
    turn_id: "t",
  });

beforeEach(resetSeq);

describe("agent view", () => {
  it("renders the transcript from events, streaming through append and delta messages", () => {
    const { model, el } = mount();
    const start = ev("turn_start", { turn_id: "t", prompt: "build it" });
    const delta = ev("message_delta", {
      turn_id: "t",
      channel: "text",
      delta: "Wor",
      tool_call_id: null,
    });
    model.emitCustom({
      type: "append",
      events: [start, delta],
      max_events: 100,
    });
    model.emitCustom({
      type: "delta",
      seq: delta["seq"],
      delta: "king on **it**",
      length: 17,
    });
    expect(el.querySelector(".shard-msg-user pre")?.textContent).toBe(
      "build it",
    );
    const bubble = el.querySelector(".shard-msg-assistant");
    expect(bubble?.classList.contains("shard-streaming")).toBe(true);
    expect(bubble?.querySelector(".shard-markdown")?.textContent).toBe(
      "Working on it",
    );
    expect(bubble?.querySelector("strong")?.textContent).toBe("it");
  });

  it("re-renders only what changed", () => {
    const { model, el } = mount({
      events: [ev("turn_start", { turn_id: "t", prompt: "a" })],
    });
    const user = el.querySelector(".shard-msg-user");
    model.emitCustom({
      type: "append",
      events: [
        ev("error", {
          code: "c",
          message: "m",
          turn_id: null,
          retryable: false,
        }),
      ],
      max_events: 100,
    });
    expect(el.querySelector(".shard-msg-user")).toBe(user);
    expect(el.querySelectorAll(".shard-transcript > *")).toHaveLength(2);
  });

  it("a permission answer goes out as a permission_response command", () => {
    const request = permission();
    const { model, el } = mount({
      events: [request],
      pending: [request],
      client_id: "client-7",
    });
    const allow = [...el.querySelectorAll("button")].find(
      (b) => b.textContent === "Always allow",
    );
    allow?.click();
    expect(model.sent).toEqual([
      {
        type: "permission_response",
        id: expect.any(String),
        request_id: "r1",
        decision: "allow_always",
        client_id: "client-7",
        reason: null,
        rule: "bash(make)",
        scope: "agent",
        label: expect.stringMatching(/^Tab [0-9a-f]{4}$/), // no host label: this tab's
      },
    ]);
  });

  it("a refused answer shows the reason in the dialog; a resolution closes it", () => {
    const request = permission();
    const { model, el } = mount({ events: [request], pending: [request] });
    const typed = el.querySelector<HTMLInputElement>(
      ".shard-permission-reason",
    );
    if (typed) typed.value = "keep typing";
    [...el.querySelectorAll("button")]
      .find((b) => b.textContent === "Allow once")
      ?.click();
    const sent = model.sent[0] as { id: string; type: string };
    expect(sent.id.length).toBeGreaterThan(0);
    model.emitCustom({
      type: "reply",
      command_id: sent.id,
      command: "permission_response",
      ok: false,
      message: "already decided by client-b",
      data: {},
    });
    expect(
      el.querySelector(".shard-permission .shard-dialog-footer")?.textContent,
    ).toBe("already decided by client-b");
    expect(
      el.querySelector<HTMLInputElement>(".shard-permission-reason")?.value,
    ).toBe("keep typing");
    const resolved = ev("permission_resolved", {
      request_id: "r1",
      decision: "deny",
      decided_by: "client-b",
      source: "client",
      reason: null,
      rule: null,
    });
    model.set("pending", []);
    model.emitCustom({ type: "append", events: [resolved], max_events: 100 });
    expect(el.querySelector(".shard-permission button")).toBeNull();
    expect(
      el.querySelector(".shard-permission .shard-dialog-footer")?.textContent,
    ).toBe("✗ denied — by client-b");
  });

  it("another view's reply is ignored; a control's failure shows in the notice line", () => {
    const { model, el } = mount({ status: "streaming" });
    model.emitCustom({
      type: "reply",
      command_id: "elsewhere",
      command: "abort",
      ok: false,
      message: "nope",
      data: {},
    });
    expect(el.querySelector(".shard-command-notice")?.textContent).toBe("");
    [...el.querySelectorAll("button")]
      .find((b) => b.textContent === "Stop")
      ?.click();
    const id = (model.sent[0] as { id: string }).id;
    expect(model.sent).toEqual([{ type: "abort", id }]);
    model.emitCustom({
      type: "reply",
      command_id: id,
      command: "abort",
      ok: false,
      message: "no agent is attached to this widget",
      data: {},
    });
    expect(el.querySelector(".shard-command-notice span")?.textContent).toBe(
      "abort: no agent is attached to this widget",
    );
  });

  it("header: status, model, demo badge, modes; Abort only while busy", () => {
    const { model, el } = mount({ demo: true });
    const header = (): Element | null => el.querySelector(".shard-header");
    expect(header()?.querySelector(".shard-status-text")?.textContent).toBe(
      "idle",
    );
    expect(header()?.querySelector(".shard-model")?.textContent).toBe(
      "claude-x",
    );
    expect(header()?.querySelector(".shard-demo")).not.toBeNull();
    expect(header()?.querySelector(".shard-abort")).toBeNull();
    model.set("status", "waiting_for_permission");
    expect(header()?.querySelector(".shard-status-text")?.textContent).toBe(
      "waiting for permission",
    );
    expect(header()?.querySelector(".shard-abort")).not.toBeNull();
    const plan = [
      ...el.querySelectorAll<HTMLButtonElement>(".shard-mode"),
    ].find((b) => b.textContent === "plan");
    plan?.click();
    expect(model.sent.at(-1)).toMatchObject({ type: "set_mode", mode: "plan" });
    expect(
      [...el.querySelectorAll<HTMLButtonElement>(".shard-mode")].map((b) => [
        b.textContent,
        b.disabled,
      ]),
    ).toEqual([
      ["build", true],
      ["plan", false],
    ]);
  });

  it("the composer steers while a turn runs and prompts when idle", () => {
    const { model, el } = mount({ status: "streaming" });
    const input = el.querySelector<HTMLTextAreaElement>(
      ".shard-composer-input",
    );
    if (!input) throw new Error("no composer");
    input.value = "  also run the tests ";
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    model.set("status", "idle");
    input.value = "now write the docs";
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    expect(model.sent).toEqual([
      {
        type: "steer",
        id: expect.any(String),
        text: "also run the tests",
        steer_id: expect.stringMatching(/^steer-[0-9a-f]{12}$/),
      },
      {
        type: "prompt",
        id: expect.any(String),
        text: "now write the docs",
        images: [],
      },
    ]);
    expect(input.value).toBe("");
  });

  it("usage line with a context gauge", () => {
    const { model, el } = mount();
    model.set("usage", {
      turn_id: "t",
      request: usage(1, 1, 0),
      turn: usage(1200, 340, 0.0123),
      total: usage(15000, 2100, 0.5),
      context_tokens: 170000,
      context_window: 200000,
    });
    expect(
      [...el.querySelectorAll(".shard-usage > span")].map((s) => s.textContent),
    ).toEqual([
      "turn 1.2k in · 340 out · $0.01",
      "session 15k in · 2.1k out · $0.50",
      "context 170k / 200k (85%)",
    ]);
    const fill = el.querySelector<HTMLElement>(".shard-gauge-fill");
    expect(fill?.style.width).toBe("85%");
    expect(fill?.classList.contains("shard-tone-warn")).toBe(true);
  });

  it("tool results render their descriptors; hostile output stays inert", () => {
    const hostile = "<img src=x onerror=alert(1)>";
    const { el } = mount({
      events: [
        ev("tool_call", {
          turn_id: "t",
          call: {
            type: "tool_call",
            id: "c",
            name: "edit",
            input: { path: hostile },
          },
          read_only: false,
        }),
        ev("tool_result", {
          turn_id: "t",
          tool_call_id: "c",
          name: "edit",
          entry_id: "e",
          result: {
            content: [{ type: "text", text: hostile }],
            is_error: false,
            render: [
              {
                kind: "diff",
                version: 1,
                path: hostile,
                status: "modified",
                hunks: [],
              },
            ],
            details: {},
          },
        }),
      ],
    });
    expect(el.querySelector(".shard-tool-name")?.textContent).toBe("edit");
    expect(el.querySelector(".shard-tool-preview")?.textContent).toBe(hostile);
    expect(el.querySelector(".shard-tool-status")?.textContent).toBe("done");
    expect(el.querySelector(".shard-diff-path")?.textContent).toBe(hostile);
    assertInert(el);
  });

  it("cleanup removes every listener it added and empties the element", () => {
    const model = new FakeModel({ events: [] });
    const el = document.createElement("div");
    const before = model.listenerCount();
    const cleanup = renderAgentView({ model, el });
    expect(model.listenerCount()).toBeGreaterThan(before);
    cleanup();
    expect(model.listenerCount()).toBe(before);
    expect(el.childNodes).toHaveLength(0);
  });
});
