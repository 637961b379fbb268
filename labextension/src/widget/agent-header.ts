// The header: status, model, demo badge, the mode switch and Abort.
import { button, h } from "../render/dom";

export interface HeaderState {
  readonly status: string;
  readonly model: string;
  readonly demo: boolean;
  readonly mode: string;
  readonly modes: readonly string[];
}

export interface HeaderActions {
  readonly abort: () => void;
  readonly setMode: (mode: string) => void;
}

const BUSY = new Set(["streaming", "waiting_for_permission"]);

export function renderHeader(state: HeaderState, actions: HeaderActions): HTMLElement {
  const modes =
    state.modes.includes(state.mode) || !state.mode ? state.modes : [...state.modes, state.mode];
  const switcher = h("span", {
    class: "shard-modes",
    attrs: { role: "group", "aria-label": "mode" },
  });
  for (const mode of modes) {
    const current = mode === state.mode;
    const b = button(
      mode,
      () => actions.setMode(mode),
      current ? "shard-mode shard-mode-current" : "shard-mode",
    );
    b.setAttribute("aria-pressed", String(current));
    b.disabled = current;
    switcher.appendChild(b);
  }
  const status = state.status || "idle";
  return h(
    "div",
    { class: "shard-header" },
    h("span", {
      class: `shard-dot shard-dot-${BUSY.has(status) ? "busy" : status === "error" ? "error" : "idle"}`,
      attrs: { "aria-hidden": "true" },
    }),
    h("span", { class: "shard-status-text" }, status.replaceAll("_", " ")),
    state.model ? h("span", { class: "shard-model" }, state.model) : null,
    state.demo
      ? h(
          "span",
          {
            class: "shard-badge shard-demo",
            title: "answers come from the scripted demo provider",
          },
          "demo",
        )
      : null,
    h("span", { class: "shard-spacer" }),
    switcher,
    BUSY.has(status) ? button("Abort", actions.abort, "shard-button-danger shard-abort") : null,
  );
}
