// tool_update: a running tool's latest partial state is kept (one per call) and shown on its
// card until the tool_result replaces it.
import { describe, expect, it } from "vitest";
import { AgentStore } from "../../labextension/src/client/agent-store";
import {
  renderOutput,
  runningSince,
} from "../../labextension/src/lab/static-output";
import { renderToolCard } from "../../labextension/src/widget/tool-card";
import {
  applyOp,
  asTranscriptOp,
} from "../../labextension/src/widget/transcript-ops";
import {
  deriveItems,
  type ToolItem,
} from "../../labextension/src/widget/transcript-items";

type Rec = Record<string, unknown>;
const NONE = { permissions: [], ui: [] };

function at(seq: number, type: string, fields: Rec = {}): Rec {
  return { type, agent_id: "a", seq, ts: 1_700_000_000 + seq, ...fields };
}

const call = (seq: number, id = "c1"): Rec =>
  at(seq, "tool_call", {
    turn_id: "t",
    call: {
      type: "tool_call",
      id,
      name: "python_exec",
      input: { code: "loop()" },
    },
    read_only: false,
  });

const result = (text: string) => ({
  content: [{ type: "text", text }],
  is_error: false,
  render: [],
  details: {},
});

const update = (seq: number, text: string, id = "c1"): Rec =>
  at(seq, "tool_update", {
    turn_id: "t",
    tool_call_id: id,
    name: "python_exec",
    partial: {
      ...result(text),
      render: [
        {
          kind: "progress",
          label: `python_exec: running ${seq} s`,
          current: seq,
        },
        { kind: "text", text, format: "plain" },
      ],
    },
  });

const done = (seq: number, text: string, id = "c1"): Rec =>
  at(seq, "tool_result", {
    turn_id: "t",
    tool_call_id: id,
    name: "python_exec",
    entry_id: `e${seq}`,
    result: result(text),
  });

function events(store: AgentStore): Rec[] {
  return store.get("events") as Rec[];
}

function toolItem(store: AgentStore): ToolItem {
  const item = deriveItems(events(store), NONE).find((i) => i.kind === "tool");
  if (item?.kind !== "tool") throw new Error("no tool card");
  return item;
}

describe("tool_update in the store and the tool card", () => {
  it("keeps only a call's newest update, and shows it on the running card", () => {
    const store = new AgentStore("me");
    store.applyLive([call(0), update(1, "tick 1"), update(2, "tick 2")]);
    store.applyLive([
      update(3, "tick 3"),
      call(4, "c2"),
      update(5, "other", "c2"),
    ]);
    expect(events(store).map((e) => [e["type"], e["seq"]])).toEqual([
      ["tool_call", 0],
      ["tool_update", 3],
      ["tool_call", 4],
      ["tool_update", 5],
    ]);
    const item = toolItem(store);
    expect(item.status).toBe("running");
    expect(item.partial?.content).toEqual([{ type: "text", text: "tick 3" }]);
    const card = renderToolCard(item);
    const partial = card.querySelector(".shard-tool-partial");
    expect(partial?.textContent).toContain("tick 3");
    expect(partial?.textContent).toContain("python_exec: running 3 s");
    expect(card.textContent).not.toContain("tick 2");
  });

  it("drops the updates once the result is in; a late update never comes back", () => {
    const store = new AgentStore("me");
    store.applyLive([call(0), update(1, "so far")]);
    store.applyLive([update(2, "more"), done(4, "all of it")]);
    store.applyLive([update(3, "late")]); // delivered out of order, after the result
    expect(events(store).map((e) => e["type"])).toEqual([
      "tool_call",
      "tool_result",
    ]);
    const item = toolItem(store);
    expect(item.status).toBe("done");
    const card = renderToolCard(item);
    expect(card.querySelector(".shard-tool-partial")).toBeNull();
    expect(card.querySelector(".shard-tool-result")?.textContent).toContain(
      "all of it",
    );
    expect(card.textContent).not.toContain("late");
  });

  it("the item builder lets the result win even when both are in the list", () => {
    const items = deriveItems(
      [call(0), update(1, "so far"), done(2, "final")],
      NONE,
    );
    const tool = items.find((i) => i.kind === "tool") as ToolItem;
    expect(tool.partial ?? null).toBeNull();
    expect(tool.result?.content).toEqual([{ type: "text", text: "final" }]);
  });
});

describe("the notebook widget's update op", () => {
  it("puts a call's newer state in place of the kept one, and the card's signature changes", () => {
    const before = [call(0), update(1, "tick 1")];
    const op = asTranscriptOp({
      type: "update",
      seq: 1,
      event: update(1, "tick 9"),
    });
    expect(op).not.toBeNull();
    const after = applyOp(before, op!);
    expect(after?.map((e) => (e as Rec)["seq"])).toEqual([0, 1]);
    const [first, second] = [
      deriveItems(before, NONE),
      deriveItems(after ?? [], NONE),
    ];
    const [a, b] = [first[0] as ToolItem, second[0] as ToolItem];
    expect(b.partial?.content).toEqual([{ type: "text", text: "tick 9" }]);
    expect(a.sig).not.toBe(b.sig); // the view re-renders the card
    // another call's event at that seq, or no event at all: nothing changes
    expect(
      applyOp(before, { type: "update", seq: 0, event: update(0, "x") }),
    ).toBeNull();
    expect(
      applyOp(before, { type: "update", seq: 1, event: update(1, "x", "c2") }),
    ).toBeNull();
    expect(
      asTranscriptOp({ type: "update", seq: 1, event: call(1) }),
    ).toBeNull();
  });
});

describe("a %%shard cell's running card", () => {
  it("draws the progress the kernel put in its update, and still counts as running", () => {
    const data = {
      version: 1,
      descriptors: [],
      event: call(0),
      update: update(1, "tick 4"),
    };
    const node = renderOutput(data);
    expect(node.querySelector(".shard-tool-partial")?.textContent).toContain(
      "tick 4",
    );
    expect(node.querySelector(".shard-tool-status")?.textContent).toBe(
      "running…",
    );
    expect(runningSince(data)).not.toBeNull();
    // an `update` that is not a tool_update is ignored
    const plain = renderOutput({ ...data, update: { type: "tool_result" } });
    expect(plain.querySelector(".shard-tool-partial")).toBeNull();
  });
});

describe("a terminal's live card", () => {
  const screen = (seq: number, text: string): Rec =>
    at(seq, "tool_update", {
      turn_id: "t",
      tool_call_id: "c1",
      name: "terminal_wait",
      partial: {
        ...result(text),
        render: [
          {
            kind: "terminal",
            terminal_id: "t1",
            name: "dev",
            command: "npm run dev",
            state: "running",
            screen: text,
            server_terminal: "shard_a_t1_0f0f",
          },
        ],
      },
    });

  it("shows the newest screen with Open in Lab while it runs, in the chat and a cell", () => {
    const store = new AgentStore("me");
    store.applyLive([call(0), screen(1, "compiling…")]);
    store.applyLive([screen(2, "compiling…\nready on :5173")]);
    const card = renderToolCard(toolItem(store));
    const pre = card.querySelector(
      ".shard-tool-partial .shard-terminal-screen",
    );
    expect(pre?.textContent).toBe("compiling…\nready on :5173");
    expect(card.querySelector(".shard-terminal-running")?.textContent).toBe(
      "running",
    );
    expect(
      card.querySelector(".shard-tool-partial button")?.textContent,
    ).toContain("Open in Lab");
    const cell = renderOutput({
      version: 1,
      descriptors: [],
      event: call(0),
      update: screen(2, "ready on :5173"),
    });
    expect(cell.querySelector(".shard-terminal-screen")?.textContent).toBe(
      "ready on :5173",
    );
  });
});
