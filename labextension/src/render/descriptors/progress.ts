// kind "progress": a labelled bar; without a total it is indeterminate and shows the count.
import { h } from "../dom";
import { isFiniteNumber, isOptional, isRecord, isString } from "../guards";
import type { ProgressDescriptor } from "../../wire";

export function isProgressDescriptor(value: unknown): value is ProgressDescriptor {
  return (
    isRecord(value) &&
    value["kind"] === "progress" &&
    isString(value["label"]) &&
    isFiniteNumber(value["current"]) &&
    isOptional(value["total"], isFiniteNumber)
  );
}

export function renderProgress(d: ProgressDescriptor): HTMLElement {
  const bar = h("progress", { class: "shard-progress-bar" });
  const total = d.total ?? null;
  let figures = formatCount(d.current);
  if (total !== null && total > 0) {
    bar.max = total;
    bar.value = Math.min(Math.max(d.current, 0), total);
    figures = `${formatCount(d.current)} / ${formatCount(total)} (${Math.round((100 * bar.value) / total)}%)`;
  }
  bar.setAttribute("aria-label", d.label);
  return h(
    "div",
    { class: "shard-progress" },
    h("span", { class: "shard-progress-label" }, d.label),
    bar,
    h("span", { class: "shard-progress-figures" }, figures),
  );
}

function formatCount(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}
