import { describe, expect, it } from "vitest";
import { AgentStore } from "../../labextension/src/client/agent-store";
import {
  OUTPUT_SELECTOR,
  outputInjection,
} from "../../labextension/src/lab/send-output";
import { renderPlainItem } from "../../labextension/src/widget/item-views";
import { deriveItems } from "../../labextension/src/widget/transcript-items";
import * as commands from "../../labextension/src/widget/commands";
import {
  renderUsageHistory,
  usageBar,
} from "../../labextension/src/widget/usage-bars";

type Rec = Record<string, unknown>;

function at(seq: number, type: string, fields: Rec = {}): Rec {
  return {
    type,
    agent_id: "agent-test",
    seq,
    ts: 1_700_000_000 + seq,
    ...fields,
  };
}

const receipt = (
  seq: number,
  steerId: string,
  status: string,
  fields: Rec = {},
): Rec =>
  at(seq, "steer_receipt", {
    steer_id: steerId,
    status,
    text: `text of ${steerId}`,
    reason: null,
    entry_id: null,
    turn_id: "t1",
    ...fields,
  });

const noPending = { permissions: [], ui: [] };

describe("steer receipts", () => {
  it("the store keeps each steer's newest receipt, whatever order they arrive in", () => {
    const store = new AgentStore("tab-1");
    const changes: string[] = [];
    store.on("change:steers", () => changes.push("steers"));
    store.applyLive([
      receipt(5, "s-1", "queued", {
        reason: "the turn ended (completed) first",
      }),
    ]);
    store.applyLive([
      receipt(9, "s-1", "admitted", { entry_id: "e9" }),
      receipt(7, "s-2", "rejected"),
    ]);
    store.applySnapshot({
      status: "idle",
      mode: "build",
      model: "m",
      last_seq: 9,
      pending_permissions: [],
      pending_ui: [],
      events: [receipt(5, "s-1", "queued")],
      has_more: false,
    }); // a replayed older receipt never wins
    const steers = store.get("steers") as Record<string, Rec>;
    expect(
      Object.fromEntries(
        Object.entries(steers).map(([k, v]) => [k, v["status"]]),
      ),
    ).toEqual({
      "s-1": "admitted",
      "s-2": "rejected",
    });
    expect(steers["s-1"]?.["entry_id"]).toBe("e9");
    expect(changes).toEqual(["steers", "steers"]);
  });

  it("the transcript shows one item per steer with its state next to the text", () => {
    const items = deriveItems(
      [
        receipt(1, "s-1", "superseded", { reason: "replaced by s-2" }),
        receipt(2, "s-2", "queued", {
          reason: "no turn was running: waits for the next",
        }),
        receipt(3, "s-2", "admitted", { entry_id: "e3" }),
        receipt(4, "s-3", "rejected", {
          reason: "the turn ended (completed) before another provider request",
        }),
      ],
      noPending,
    );
    expect(
      items.map((i) => (i.kind === "steer" ? [i.steerId, i.status] : i.kind)),
    ).toEqual([
      ["s-1", "superseded"],
      ["s-2", "admitted"],
      ["s-3", "rejected"],
    ]);
    const shown = items.map((i) => {
      const el = renderPlainItem(i as never, null);
      return [
        el.querySelector(".shard-steer-status")?.textContent,
        el.querySelector("pre")?.textContent,
      ];
    });
    expect(shown).toEqual([
      ["superseded — replaced by s-2", "text of s-1"],
      ["admitted: in the agent's next request", "text of s-2"],
      [
        "rejected — the turn ended (completed) before another provider request",
        "text of s-3",
      ],
    ]);
  });

  it("a steer command names the steer its receipt will carry", () => {
    const a = commands.steer("use the other file");
    const b = commands.steer("use the other file");
    expect(a).toEqual({
      type: "steer",
      id: expect.any(String),
      text: "use the other file",
      steer_id: expect.stringMatching(/^steer-/),
    });
    expect(a.steer_id).not.toBe(b.steer_id);
  });
});

describe("injected context and titles", () => {
  it("injected context is a folded transcript item naming what it is", () => {
    const items = deriveItems(
      [
        at(1, "context_injected", {
          entry_id: "e1",
          kind: "output",
          label: "nb.ipynb Out[3]",
          text: "42",
          turn_id: null,
        }),
      ],
      noPending,
    );
    const el = renderPlainItem(items[0] as never, null);
    expect(el.tagName).toBe("DETAILS");
    expect(el.querySelector("summary")?.textContent).toBe(
      "Context (output: nb.ipynb Out[3]) — sent with the next request",
    );
    expect(el.querySelector("pre")?.textContent).toBe("42");
  });

  it("the store takes the session title from the status", () => {
    const store = new AgentStore("tab-1");
    store.applyLive([
      at(1, "status", {
        status: "idle",
        mode: "build",
        model: "m",
        title: "Login flake",
      }),
    ]);
    expect(store.get("title")).toBe("Login flake");
  });

  it("send this output builds an inject command labelled with the notebook and prompt", () => {
    document.body.innerHTML = `
      <div class="jp-OutputArea-child">
        <div class="jp-OutputPrompt">[7]:</div>
        <div class="jp-OutputArea-output"><pre>ZeroDivisionError: division by zero</pre></div>
      </div>
      <div class="jp-OutputArea-child"><div class="jp-OutputArea-output"></div></div>
      <div class="jp-Cell">
        <div class="jp-InputPrompt">[4]:</div>
        <div class="jp-OutputArea-child">
          <div class="jp-OutputPrompt"></div>
          <div class="jp-OutputArea-output">a display</div>
        </div>
      </div>`;
    const [first, empty, display] = [
      ...document.querySelectorAll(OUTPUT_SELECTOR),
    ];
    expect(outputInjection(first as Element, "analysis.ipynb")).toEqual({
      type: "inject",
      id: expect.any(String),
      text: "ZeroDivisionError: division by zero",
      kind: "output",
      label: "analysis.ipynb Out[7]",
    });
    expect(outputInjection(empty as Element, null)).toBeNull();
    expect(outputInjection(display as Element, null)?.label).toBe("cell [4]");
  });

  it("usage bars scale to the biggest agent", () => {
    const widths = [
      { input_tokens: 900, output_tokens: 100, cost_usd: 0.5 },
      { input_tokens: 200, output_tokens: 50 },
      {},
    ].map(
      (u) => (usageBar(u, 1000).firstElementChild as HTMLElement).style.width,
    );
    expect(widths).toEqual(["100%", "25%", "0%"]);
    expect(
      usageBar({ input_tokens: 900, output_tokens: 100, cost_usd: 0.5 }, 1000)
        .title,
    ).toBe("1k tokens · $0.50");
  });

  it("the usage history is a bar per row, the biggest full", () => {
    const table = renderUsageHistory([
      {
        key: "2026-11-30",
        requests: 3,
        input_tokens: 3000,
        output_tokens: 1000,
      },
      { key: "2026-12-01", requests: 1, input_tokens: 900, output_tokens: 100 },
    ]);
    const rows = [...table.querySelectorAll("tr")].map((tr) => [
      tr.querySelector(".shard-usage-key")?.textContent,
      (tr.querySelector(".shard-usage-fill") as HTMLElement).style.width,
      tr.querySelector(".shard-num")?.textContent,
    ]);
    expect(rows).toEqual([
      ["2026-11-30", "100%", "4k"],
      ["2026-12-01", "25%", "1k"],
    ]);
    expect(renderUsageHistory([]).textContent).toBe(
      "No provider requests yet.",
    );
  });
});
