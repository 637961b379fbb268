// A small bar chart of token use across agents: one bar per agent, scaled to the biggest, with
// the figures in its title. Shared by the Lab agents panel and the dashboard widget.
import { h } from "../render/dom";
import { formatCost, formatTokens } from "../render/format";
import { isFiniteNumber, isRecord } from "../render/guards";

/** Every token the agent's requests used or produced (input, output, cache reads and writes). */
export function usageTokens(usage: unknown): number {
  if (!isRecord(usage)) return 0;
  const n = (key: string): number => (isFiniteNumber(usage[key]) ? usage[key] : 0);
  return n("input_tokens") + n("output_tokens") + n("cache_read_tokens") + n("cache_write_tokens");
}

export function usageBar(usage: unknown, most: number): HTMLElement {
  const tokens = usageTokens(usage);
  const cost = isRecord(usage) && isFiniteNumber(usage["cost_usd"]) ? usage["cost_usd"] : NaN;
  const share = most > 0 ? Math.max(tokens > 0 ? 2 : 0, Math.round((100 * tokens) / most)) : 0;
  const caption = `${formatTokens(tokens)} tokens · ${formatCost(cost)}`;
  const fill = h("span", { class: "shard-usage-fill" });
  fill.style.width = `${share}%`; // a CSSOM write, which a style-src policy allows
  return h(
    "div",
    { class: "shard-usage-bar", title: caption, attrs: { role: "img", "aria-label": caption } },
    fill,
  );
}

/** The usage history as rows of bars (a day, a model or an agent each), biggest bar full. */
export function renderUsageHistory(rows: readonly unknown[]): HTMLElement {
  const records = rows.filter(isRecord);
  if (records.length === 0) return h("div", { class: "shard-empty" }, "No provider requests yet.");
  const most = Math.max(0, ...records.map(usageTokens));
  return h(
    "table",
    { class: "shard-usage-history" },
    h(
      "tbody",
      null,
      ...records.map((row) =>
        h(
          "tr",
          null,
          h("td", { class: "shard-usage-key" }, String(row["key"] ?? "")),
          h("td", { class: "shard-usage-cell" }, usageBar(row, most)),
          h("td", { class: "shard-num" }, formatTokens(usageTokens(row))),
        ),
      ),
    ),
  );
}
