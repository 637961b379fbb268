// kind "diff": a unified diff with a file header (status, path, +/- counts) and coloured lines.
import { h } from "../dom";
import { isArrayOf, isFiniteNumber, isOneOf, isRecord, isString } from "../guards";
import type { DiffDescriptor, Hunk } from "../../wire";

const STATUSES = ["created", "modified", "deleted"] as const;

function isHunk(value: unknown): value is Hunk {
  return (
    isRecord(value) &&
    isFiniteNumber(value["old_start"]) &&
    isFiniteNumber(value["old_lines"]) &&
    isFiniteNumber(value["new_start"]) &&
    isFiniteNumber(value["new_lines"]) &&
    isArrayOf(value["lines"], isString)
  );
}

export function isDiffDescriptor(value: unknown): value is DiffDescriptor {
  return (
    isRecord(value) &&
    value["kind"] === "diff" &&
    isString(value["path"]) &&
    isArrayOf(value["hunks"], isHunk) &&
    (value["status"] === undefined || isOneOf(value["status"], STATUSES))
  );
}

export function renderDiff(d: DiffDescriptor): HTMLElement {
  let added = 0;
  let removed = 0;
  const body = h("div", { class: "shard-diff-body" });
  for (const hunk of d.hunks) {
    const header = `@@ -${hunk.old_start},${hunk.old_lines} +${hunk.new_start},${hunk.new_lines} @@`;
    body.appendChild(h("div", { class: "shard-diff-line shard-diff-hunk" }, header));
    for (const line of hunk.lines) {
      const kind = lineKind(line);
      if (kind === "add") added += 1;
      if (kind === "del") removed += 1;
      body.appendChild(h("div", { class: `shard-diff-line shard-diff-${kind}` }, line));
    }
  }
  const status = d.status ?? "modified";
  const header = h(
    "div",
    { class: "shard-diff-header" },
    h("span", { class: `shard-badge shard-diff-status shard-diff-${status}` }, status),
    h("span", { class: "shard-diff-path" }, d.path),
    h(
      "span",
      { class: "shard-diff-stats" },
      h("span", { class: "shard-diff-added" }, `+${added}`),
      " ",
      h("span", { class: "shard-diff-removed" }, `−${removed}`),
    ),
  );
  return h("div", { class: "shard-diff" }, header, body);
}

function lineKind(line: string): "add" | "del" | "ctx" | "meta" {
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  if (line.startsWith("\\")) return "meta";
  return "ctx";
}
