// Numbers as people read them in a usage line: 1.2k tokens, $0.0123.

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
