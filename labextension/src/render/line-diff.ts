// Unified-diff hunks between two texts, line by line (an LCS table: cells are small), in the
// shape of the wire's Hunk so a diff made in the browser renders like one a tool sent.
import type { Hunk } from "../wire";

const CONTEXT = 3;
/** Above this many line pairs the table would be large: show one hunk replacing all. */
const MAX_CELLS = 4_000_000;

type Op = readonly [" " | "-" | "+", string];

function lines(text: string): string[] {
  if (text === "") return [];
  const parts = text.split("\n");
  if (parts[parts.length - 1] === "") parts.pop();
  return parts;
}

function ops(a: readonly string[], b: readonly string[]): Op[] {
  if (a.length * b.length > MAX_CELLS)
    return [...a.map((x): Op => ["-", x]), ...b.map((x): Op => ["+", x])];
  const width = b.length + 1;
  const table = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i -= 1)
    for (let j = b.length - 1; j >= 0; j -= 1)
      table[i * width + j] =
        a[i] === b[j]
          ? (table[(i + 1) * width + j + 1] ?? 0) + 1
          : Math.max(table[(i + 1) * width + j] ?? 0, table[i * width + j + 1] ?? 0);
  const out: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push([" ", a[i] ?? ""]);
      i += 1;
      j += 1;
    } else if (
      i < a.length &&
      (j >= b.length || (table[(i + 1) * width + j] ?? 0) >= (table[i * width + j + 1] ?? 0))
    ) {
      out.push(["-", a[i] ?? ""]); // deletions first, as unified diffs show them
      i += 1;
    } else {
      out.push(["+", b[j] ?? ""]);
      j += 1;
    }
  }
  return out;
}

/** Hunks turning `before` into `after`, with three lines of context; none when they are equal. */
export function diffLines(before: string, after: string): Hunk[] {
  const all = ops(lines(before), lines(after));
  const changed = all.flatMap((op, index) => (op[0] === " " ? [] : [index]));
  const hunks: Hunk[] = [];
  let k = 0;
  while (k < changed.length) {
    const first = changed[k] ?? 0;
    let last = first;
    while (k + 1 < changed.length && (changed[k + 1] ?? 0) - last <= 2 * CONTEXT) {
      k += 1;
      last = changed[k] ?? last;
    }
    k += 1;
    const start = Math.max(0, first - CONTEXT);
    const end = Math.min(all.length, last + CONTEXT + 1);
    const before = all.slice(0, start);
    const oldBefore = before.filter((op) => op[0] !== "+").length;
    const newBefore = before.filter((op) => op[0] !== "-").length;
    const span = all.slice(start, end);
    const oldLines = span.filter((op) => op[0] !== "+").length;
    const newLines = span.filter((op) => op[0] !== "-").length;
    hunks.push({
      old_start: oldLines ? oldBefore + 1 : oldBefore,
      old_lines: oldLines,
      new_start: newLines ? newBefore + 1 : newBefore,
      new_lines: newLines,
      lines: span.map(([sign, text]) => sign + text),
    });
  }
  return hunks;
}
