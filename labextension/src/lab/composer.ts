// The chat composer: a prompt box that sends a prompt when the agent is idle and a steer while a
// turn runs (the steer's state shown under it), with completion for `/` commands.
import { button, h } from "../render/dom";

export const SLASH_COMMANDS: readonly (readonly [string, string])[] = [
  ["/help", "list the commands"],
  ["/status", "agent, mode, clients, usage"],
  ["/mode plan", "read-only planning mode"],
  ["/mode build", "build mode (uses the latest plan)"],
  ["/compact", "compact the context now"],
  ["/recall ", "search everything the agent did"],
  ["/fork", "fork the session"],
  ["/grants", "the saved permission grants"],
];

export interface ComposerActions {
  readonly prompt: (text: string) => void;
  readonly steer: (text: string) => void;
}

export class Composer {
  readonly el: HTMLElement;
  readonly input: HTMLTextAreaElement;
  private readonly sendButton: HTMLButtonElement;
  private readonly state: HTMLElement;
  private readonly menu: HTMLElement;
  private busy = false;
  private enabled = true;

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
    this.input.addEventListener("input", () => this.updateMenu());
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
        ? SLASH_COMMANDS.filter(([name]) => name.startsWith(text) && name !== text)
        : [];
    this.menu.replaceChildren(
      ...matches.map(([name, help]) => {
        const item = h(
          "li",
          { class: "shard-slash-item", attrs: { role: "option" } },
          h("code", null, name.trim()),
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
