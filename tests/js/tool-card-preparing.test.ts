import { afterEach, describe, expect, it, vi } from "vitest";
import {
  PREPARING_DELAY_MS,
  renderToolCard,
} from "../../labextension/src/widget/tool-card";
import type { ToolItem } from "../../labextension/src/widget/transcript-items";

function toolItem(fields: Partial<ToolItem>): ToolItem {
  return {
    kind: "tool",
    key: "tool:c1",
    sig: "1",
    id: "c1",
    turnId: "t1",
    name: "",
    input: null,
    inputText: "",
    readOnly: false,
    result: null,
    status: "streaming",
    decision: null,
    ...fields,
  } as ToolItem;
}

const held = (card: HTMLElement): boolean =>
  card.classList.contains("shard-tool-held");

describe("a tool card whose arguments still stream", () => {
  afterEach(() => vi.useRealTimers());

  it("shows only after its first moments, however often it is drawn again", () => {
    vi.useFakeTimers();
    const item = toolItem({});
    const first = renderToolCard(item);
    expect(held(first)).toBe(true);
    vi.advanceTimersByTime(PREPARING_DELAY_MS / 2);
    item.inputText = '{"path": "a.t';
    const again = renderToolCard(item); // a delta re-draws it: the same call, the same moment
    expect(held(again)).toBe(true);
    vi.advanceTimersByTime(PREPARING_DELAY_MS / 2 + 1);
    expect(held(again)).toBe(false);
    expect(held(renderToolCard(item))).toBe(false);
  });

  it("shows at once when the call is complete (running, asked, done)", () => {
    vi.useFakeTimers();
    const item = toolItem({});
    expect(held(renderToolCard(item))).toBe(true);
    item.status = "running";
    item.name = "write";
    const running = renderToolCard(item);
    expect(held(running)).toBe(false);
    expect(running.querySelector(".shard-tool-status")?.textContent).toBe(
      "running…",
    );
    expect(
      held(
        renderToolCard(toolItem({ id: "c2", status: "done", name: "read" })),
      ),
    ).toBe(false);
  });
});
