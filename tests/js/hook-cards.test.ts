import { beforeEach, describe, expect, it } from "vitest";
import { renderPlainItem } from "../../labextension/src/widget/item-views";
import { deriveItems } from "../../labextension/src/widget/transcript-items";
import { ev, resetSeq } from "./helpers";

beforeEach(resetSeq);

const run = {
  kind: "hook_run",
  event: "PreToolUse",
  command: "./policy.sh",
  source: "config.json",
  tool: "bash",
  tool_call_id: "c1",
  turn_id: "t",
  exit_code: 2,
  timed_out: false,
  duration_ms: 12.5,
  decision: "deny",
  reason: "no rm here",
  system_message: "policy v2",
  sandboxed: true,
};

describe("hook run cards", () => {
  it("a hook_run event is one small card: event, tool, command, decision, reason, note", () => {
    const items = deriveItems([ev("hook_run", { entry_id: "e1", run })], {
      permissions: [],
      ui: [],
    });
    expect(items.map((i) => i.kind)).toEqual(["hook"]);
    const card = renderPlainItem(items[0] as never, null);
    expect(card.className).toBe("shard-hook-card shard-tone-warn");
    expect(card.getAttribute("data-decision")).toBe("deny");
    expect(card.querySelector(".shard-hook-event")?.textContent).toBe(
      "hook PreToolUse (bash)",
    );
    expect(card.querySelector(".shard-hook-command")?.textContent).toBe(
      "./policy.sh",
    );
    expect(card.querySelector(".shard-hook-facts")?.textContent).toBe(
      "deny · exit 2 · 12.5 ms · sandboxed",
    );
    expect(card.querySelector(".shard-hook-reason")?.textContent).toBe(
      "no rm here",
    );
    expect(card.querySelector(".shard-hook-message")?.textContent).toBe(
      "policy v2",
    );
  });

  it("a timed-out run says so, and a quiet one is an info card without a reason", () => {
    const quiet = {
      ...run,
      decision: "none",
      reason: null,
      system_message: null,
      exit_code: 0,
    };
    const late = {
      ...run,
      decision: "error",
      timed_out: true,
      exit_code: null,
      reason: null,
    };
    const items = deriveItems(
      [
        ev("hook_run", { entry_id: "e1", run: quiet }),
        ev("hook_run", { entry_id: "e2", run: late }),
      ],
      { permissions: [], ui: [] },
    );
    const [a, b] = items.map((i) => renderPlainItem(i as never, null));
    expect(a?.className).toBe("shard-hook-card shard-tone-info");
    expect(a?.querySelector(".shard-hook-reason")).toBeNull();
    expect(b?.className).toBe("shard-hook-card shard-tone-error");
    expect(b?.querySelector(".shard-hook-facts")?.textContent).toBe(
      "error · timed out · 12.5 ms · sandboxed",
    );
  });
});
