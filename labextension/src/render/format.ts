// Numbers and names as people read them: 1.2k tokens, $0.0123, a scripted model by its script.

export function formatTokens(count: number): string {
  if (!Number.isFinite(count)) return "?";
  if (Math.abs(count) < 1000) return String(Math.round(count));
  if (Math.abs(count) < 1_000_000) return `${trim(count / 1000)}k`;
  return `${trim(count / 1_000_000)}M`;
}

export function formatCost(usd: number): string {
  if (!Number.isFinite(usd)) return "$?";
  if (usd === 0) return "$0";
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

export function formatPercent(part: number, whole: number): string {
  if (!(whole > 0)) return "";
  return `${Math.round((100 * part) / whole)}%`;
}

function trim(value: number): string {
  return value >= 100 ? value.toFixed(0) : value.toFixed(1).replace(/\.0$/, "");
}

/** A scripted model by its script's name (`scripted/…/x.json`, or the script path a scripted
 * agent reports as its model); any other model as it is. */
export function shortModel(model: string): string {
  const scripted =
    /^scripted\/(?:.*\/)?([^/]+)$/.exec(model) ?? /^\/(?:.*\/)?([^/]+\.json)$/.exec(model);
  return scripted ? `scripted: ${scripted[1]}` : model;
}
