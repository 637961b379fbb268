// The chat composer: a prompt box that sends a prompt when the agent is idle and a steer while a
// turn runs (the steer's state shown under it), with completion for `/` commands. The commands
// are the agent's own (`setCommands`, from its `list_commands` reply): bundled, the kernel's and
// every extension's alike; the composer keeps no list of its own.
import { button, h } from "../render/dom";
import type { SlashCommandInfo } from "../wire";

export interface ComposerActions {
  /** a prompt, or a `/` command (also while a turn runs) */
  readonly prompt: (text: string) => void;
  readonly steer: (text: string) => void;
  /** asked when a `/` starts the box: answer with `setCommands` */
  readonly wantCommands?: () => void;
}

export class Composer {
  readonly el: HTMLElement;
  readonly input: HTMLTextAreaElement;
  private readonly sendButton: HTMLButtonElement;
  private readonly state: HTMLElement;
  private readonly menu: HTMLElement;
  private busy = false;
  private enabled = true;
  private commands: readonly SlashCommandInfo[] = [];

  constructor(private readonly actions: ComposerActions) {
    this.input = h("textarea", {
      class: "shard-input shard-composer-input",
      attrs: {
        rows: "3",
        "aria-label": "Message the agent",
        placeholder: "Ask the agent… (/ for commands, Enter sends, Shift+Enter for a new line)",
      },
    });
    this.sendButton = button("Send", () => this.submit(), "shard-button-primary shard-send");
    this.state = h("div", { class: "shard-steer-state", attrs: { "aria-live": "polite" } });
    this.menu = h("ul", { class: "shard-slash-menu", attrs: { role: "listbox" } });
    this.menu.hidden = true;
    this.input.addEventListener("keydown", (event) => this.onKey(event));
    this.input.addEventListener("input", () => {
      if (this.input.value === "/") this.actions.wantCommands?.();
      this.updateMenu();
    });
    this.el = h(
      "div",
      { class: "shard-composer" },
      this.menu,
      h("div", { class: "shard-composer-row" }, this.input, this.sendButton),
      this.state,
    );
  }

  /** While a turn runs, sending steers it. */
  setBusy(busy: boolean): void {
    this.busy = busy;
    this.sendButton.textContent = busy ? "Steer" : "Send";
    this.sendButton.title = busy
      ? "Queue this message into the running turn's next model request"
      : "Start a turn with this prompt";
  }

  setEnabled(enabled: boolean, why = ""): void {
    this.enabled = enabled;
    this.input.disabled = !enabled;
    this.sendButton.disabled = !enabled;
    if (!enabled && why) this.showState(why, "info");
  }

  /** The agent's commands, for the `/` menu. */
  setCommands(commands: readonly SlashCommandInfo[]): void {
    this.commands = [...commands];
    this.updateMenu();
  }

  showState(text: string, tone: "info" | "success" | "error"): void {
    this.state.className = `shard-steer-state shard-tone-${tone}`;
    this.state.textContent = text;
  }

  private submit(): void {
    const text = this.input.value.trim();
    if (!text || !this.enabled) return;
    this.input.value = "";
    this.updateMenu();
    if (this.busy && !text.startsWith("/")) {
      this.actions.steer(text);
      this.showState(`Steer sent: “${clip(text)}” — waiting for the agent…`, "info");
    } else {
      this.actions.prompt(text);
      this.showState("", "info");
    }
  }

  private onKey(event: KeyboardEvent): void {
    if (event.key === "Tab" && !this.menu.hidden) {
      const first = this.menu.querySelector<HTMLElement>("li");
      if (first?.dataset["command"]) {
        event.preventDefault();
        this.complete(first.dataset["command"]);
      }
    } else if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      this.submit();
    } else if (event.key === "Escape") {
      this.menu.hidden = true;
    }
  }

  private updateMenu(): void {
    const text = this.input.value;
    const matches =
      text.startsWith("/") && !text.includes("\n")
        ? this.commands.filter(({ name }) => name.startsWith(text) && name !== text)
        : [];
    this.menu.replaceChildren(
      ...matches.map(({ name, description: help, hint }) => {
        const item = h(
          "li",
          { class: "shard-slash-item", attrs: { role: "option" } },
          h("code", null, hint ? `${name.trim()} ${hint}` : name.trim()),
          ` — ${help}`,
        );
        item.dataset["command"] = name;
        item.addEventListener("mousedown", (event) => {
          event.preventDefault();
          this.complete(name);
        });
        return item;
      }),
    );
    this.menu.hidden = matches.length === 0;
  }

  private complete(name: string): void {
    this.input.value = name;
    this.input.focus();
    this.updateMenu();
  }
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}
