// A one-line input that steers the running turn: the message goes into its next model request,
// and the transcript shows the steer's receipt (admitted, or rejected when no turn took it). A
// line that starts with `/` is a command instead (its output shows in the transcript); the
// commands it completes are the agent's own (`setCommands`, from its `list_commands` reply).
import { button, h } from "../render/dom";
import type { SlashCommandInfo } from "../wire";

export interface SteerBoxActions {
  readonly command?: (text: string) => void;
  /** asked when a `/` starts the box: answer with `setCommands` */
  readonly wantCommands?: () => void;
}

export interface SteerBox {
  readonly el: HTMLElement;
  setCommands(commands: readonly SlashCommandInfo[]): void;
}

export function renderSteerBox(
  onSteer: (text: string) => void,
  actions: SteerBoxActions = {},
): SteerBox {
  const listId = `shard-steer-commands-${Math.random().toString(36).slice(2, 10)}`;
  const options = h("datalist", { attrs: { id: listId } });
  const input = h("input", {
    class: "shard-input shard-steer-input",
    attrs: {
      type: "text",
      placeholder: actions.command
        ? "Steer the agent (sent into its next request), or / for commands…"
        : "Steer the agent (sent into its next request)…",
      "aria-label": "Steering message",
      ...(actions.command ? { list: listId } : {}),
    },
  });
  const send = (): void => {
    const text = input.value.trim();
    if (!text) return;
    if (text.startsWith("/") && actions.command) actions.command(text);
    else onSteer(text);
    input.value = "";
  };
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") send();
  });
  input.addEventListener("input", () => {
    if (input.value === "/") actions.wantCommands?.();
  });
  return {
    el: h("div", { class: "shard-steer" }, input, button("Steer", send), options),
    setCommands: (commands) =>
      options.replaceChildren(
        ...commands.map((c) =>
          h(
            "option",
            { attrs: { value: c.name } },
            c.hint ? `${c.hint}: ${c.description}` : c.description,
          ),
        ),
      ),
  };
}
