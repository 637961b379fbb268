// kind "tree": nested nodes; nodes with children collapse (<details>), the top levels start open.
import { h } from "../dom";
import { isArrayOf, isRecord, isString } from "../guards";
import type { TreeDescriptor, TreeNode } from "../../wire";

const OPEN_LEVELS = 2;
const MAX_DEPTH = 64;
const MAX_NODES = 5000;

function isTreeNode(value: unknown, depth = 0): value is TreeNode {
  return (
    depth <= MAX_DEPTH &&
    isRecord(value) &&
    isString(value["label"]) &&
    (value["children"] === undefined ||
      isArrayOf(value["children"], (c): c is TreeNode => isTreeNode(c, depth + 1))) &&
    (value["is_dir"] === undefined || typeof value["is_dir"] === "boolean")
  );
}

export function isTreeDescriptor(value: unknown): value is TreeDescriptor {
  return isRecord(value) && value["kind"] === "tree" && isTreeNode(value["root"]);
}

export function renderTree(d: TreeDescriptor): HTMLElement {
  const budget = { left: MAX_NODES };
  return h("div", { class: "shard-tree", attrs: { role: "tree" } }, node(d.root, 0, budget));
}

function node(n: TreeNode, depth: number, budget: { left: number }): HTMLElement {
  budget.left -= 1;
  const label = h(
    "span",
    { class: n.is_dir ? "shard-tree-label shard-tree-dir" : "shard-tree-label" },
    n.label,
  );
  const children = n.children ?? [];
  if (children.length === 0)
    return h("div", { class: "shard-tree-leaf", attrs: { role: "treeitem" } }, label);
  const details = h(
    "details",
    { class: "shard-tree-node", attrs: { role: "treeitem" } },
    h("summary", null, label),
  );
  details.open = depth < OPEN_LEVELS;
  const list = h("div", { class: "shard-tree-children", attrs: { role: "group" } });
  for (const [index, child] of children.entries()) {
    if (budget.left <= 0) {
      list.appendChild(h("div", { class: "shard-tree-more" }, `… ${children.length - index} more`));
      break;
    }
    list.appendChild(node(child, depth + 1, budget));
  }
  details.appendChild(list);
  return details;
}
