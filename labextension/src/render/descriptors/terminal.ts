// kind "terminal": a terminal's screen as the agent last read it, updated by each tool_update;
// "Open in Lab" when it is one of the Jupyter server's terminals.
import { button, h } from "../dom";
import { isOptional, isRecord, isString } from "../guards";
import type { TerminalDescriptor } from "../../wire";

/** Dispatched (bubbling, cancelable) by "Open in Lab"; the Lab plugin opens its terminal
 * widget and cancels it. Uncancelled (a page without Lab's shell), Lab opens in a new tab. */
export const OPEN_TERMINAL_EVENT = "shard:open-terminal";
const NAME = /^\w{1,64}$/;

export function isTerminalDescriptor(value: unknown): value is TerminalDescriptor {
  return (
    isRecord(value) &&
    value["kind"] === "terminal" &&
    isString(value["terminal_id"]) &&
    isString(value["name"]) &&
    isString(value["command"]) &&
    isString(value["state"]) &&
    isString(value["screen"]) &&
    isOptional(value["server_terminal"], (v): v is string | null => v === null || isString(v))
  );
}

export function renderTerminal(d: TerminalDescriptor): HTMLElement {
  const running = d.state === "running";
  const head = h(
    "div",
    { class: "shard-terminal-head" },
    h("span", { class: "shard-terminal-name" }, `${d.terminal_id} · ${d.name}`),
    h("code", { class: "shard-terminal-command" }, d.command),
    h(
      "span",
      { class: `shard-terminal-state${running ? " shard-terminal-running" : ""}` },
      d.state,
    ),
  );
  const server = d.server_terminal ?? "";
  if (NAME.test(server)) head.appendChild(openButton(server));
  const screen = h(
    "pre",
    { class: "shard-terminal-screen", attrs: { "aria-label": `terminal ${d.name} screen` } },
    d.screen || " ",
  );
  return h("div", { class: "shard-terminal" }, head, screen);
}

/** Asks the page to open server terminal `name` (from `from`, which the event bubbles up). */
export function openServerTerminal(from: HTMLElement, name: string): void {
  if (!NAME.test(name)) return;
  const event = new CustomEvent(OPEN_TERMINAL_EVENT, {
    bubbles: true,
    cancelable: true,
    detail: { name },
  });
  if (from.dispatchEvent(event)) {
    window.open(`${baseUrl()}lab/terminals/${encodeURIComponent(name)}`, "_blank", "noopener");
  }
}

function openButton(name: string): HTMLButtonElement {
  const open = button("Open in Lab", () => openServerTerminal(open, name), "shard-terminal-open");
  open.title = `open terminal ${name} in JupyterLab, where you can type into it`;
  return open;
}

function baseUrl(): string {
  try {
    const data: unknown = JSON.parse(
      document.getElementById("jupyter-config-data")?.textContent ?? "{}",
    );
    const base = isRecord(data) && isString(data["baseUrl"]) ? data["baseUrl"] : "/";
    return base.endsWith("/") ? base : `${base}/`;
  } catch {
    return "/";
  }
}
