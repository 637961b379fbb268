// The usage line: this turn's and the session's tokens and cost, and a context gauge.
import { h } from "../render/dom";
import { formatCost, formatPercent, formatTokens } from "../render/format";
import { isFiniteNumber, isRecord } from "../render/guards";

interface Totals {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  /** null: the model has no known price */
  readonly cost: number | null;
}

function totals(value: unknown): Totals | null {
  if (!isRecord(value)) return null;
  const n = (key: string): number => (isFiniteNumber(value[key]) ? value[key] : 0);
  return {
    input: n("input_tokens"),
    output: n("output_tokens"),
    cacheRead: n("cache_read_tokens"),
    cacheWrite: n("cache_write_tokens"),
    cost: value["cost_usd"] === null ? null : n("cost_usd"),
  };
}

function describe(label: string, t: Totals): string {
  const cache =
    t.cacheRead || t.cacheWrite
      ? ` · cache ${formatTokens(t.cacheRead)} read, ${formatTokens(t.cacheWrite)} written`
      : "";
  return `${label} ${formatTokens(t.input)} in · ${formatTokens(t.output)} out${cache} · ${t.cost === null ? "cost unknown" : formatCost(t.cost)}`;
}

export function renderUsage(usage: unknown): HTMLElement {
  const line = h("div", { class: "shard-usage" });
  if (!isRecord(usage)) return line;
  const turn = totals(usage["turn"]);
  const total = totals(usage["total"]);
  if (turn) line.appendChild(h("span", { class: "shard-usage-turn" }, describe("turn", turn)));
  if (total)
    line.appendChild(h("span", { class: "shard-usage-total" }, describe("session", total)));
  const used = isFiniteNumber(usage["context_tokens"]) ? usage["context_tokens"] : 0;
  const window = isFiniteNumber(usage["context_window"]) ? usage["context_window"] : 0;
  if (window > 0) line.appendChild(gauge(used, window));
  return line;
}

function gauge(used: number, window: number): HTMLElement {
  const ratio = Math.min(1, Math.max(0, used / window));
  const tone = ratio >= 0.95 ? "error" : ratio >= 0.8 ? "warn" : "info";
  const fill = h("span", { class: `shard-gauge-fill shard-tone-${tone}` });
  fill.style.width = `${(ratio * 100).toFixed(1)}%`;
  const label = `context ${formatTokens(used)} / ${formatTokens(window)} (${formatPercent(used, window)})`;
  return h(
    "span",
    {
      class: "shard-context",
      attrs: {
        role: "meter",
        "aria-valuemin": "0",
        "aria-valuemax": String(window),
        "aria-valuenow": String(used),
        "aria-label": "context window",
      },
    },
    h("span", { class: "shard-gauge" }, fill),
    h("span", { class: "shard-context-label" }, label),
  );
}
