// kind "kv": key/value pairs as a two-column table.
import { h } from "../dom";
import { isArrayOf, isRecord, isString } from "../guards";
import type { KvDescriptor, KvPair } from "../../wire";

function isPair(value: unknown): value is KvPair {
  return isRecord(value) && isString(value["k"]) && isString(value["v"]);
}

export function isKvDescriptor(value: unknown): value is KvDescriptor {
  return isRecord(value) && value["kind"] === "kv" && isArrayOf(value["pairs"], isPair);
}

export function renderKv(d: KvDescriptor): HTMLElement {
  const rows = d.pairs.map((pair) =>
    h("tr", null, h("th", { attrs: { scope: "row" } }, pair.k), h("td", null, pair.v)),
  );
  return h("table", { class: "shard-kv" }, h("tbody", null, ...rows));
}
