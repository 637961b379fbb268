// The chat composer: a prompt box that sends a prompt when the agent is idle and a steer while a
// turn runs (the steer's state shown under it), with completion for `/` commands. The commands
// are the agent's own (`setCommands`, from its `list_commands` reply): bundled, the kernel's and
// every extension's alike; the composer keeps no list of its own. An `@` word before the caret
// opens the mention menu (`mentionOptions`: files, cells, outputs, variables); Tab or a click
// completes it.
import { button, h } from "../render/dom";
import type { SlashCommandInfo } from "../wire";

/** One entry of the `@` menu: `insert` replaces the `@…` word before the caret. */
export interface MentionOption {
  readonly insert: string;
  readonly detail: string;
}

export interface ComposerActions {
  /** a prompt, or a `/` command (also while a turn runs) */
  readonly prompt: (text: string) => void;
  readonly steer: (text: string) => void;
  /** asked when a `/` starts the box: answer with `setCommands` */
  readonly wantCommands?: () => void;
  /** what may complete the `@…` word before the caret (`@file:`, `@cell:`, …) */
  readonly mentionOptions?: (word: string) => Promise<readonly MentionOption[]>;
}

const MENTION_WORD = /(^|[\s(])(@[A-Za-z]*(?::[^\s]*)?)$/;

export class Composer {
  readonly el: HTMLElement;
  readonly input: HTMLTextAreaElement;
  private readonly sendButton: HTMLButtonElement;
  private readonly state: HTMLElement;
  private readonly menu: HTMLElement;
  private busy = false;
  private enabled = true;
  private commands: readonly SlashCommandInfo[] = [];
  private mentionAsk = 0;

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
      if (first?.dataset["mention"]) {
        event.preventDefault();
        this.completeMention(first.dataset["mention"]);
      } else if (first?.dataset["command"]) {
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

  /** The `@…` word that ends at the caret, or null. */
  private mentionWord(): string | null {
    const before = this.input.value.slice(0, this.input.selectionStart ?? this.input.value.length);
    return MENTION_WORD.exec(before)?.[2] ?? null;
  }

  private async updateMentions(word: string): Promise<void> {
    const ask = ++this.mentionAsk;
    const options = (await this.actions.mentionOptions?.(word)) ?? [];
    if (ask !== this.mentionAsk || this.mentionWord() !== word) return; // typed on meanwhile
    this.menu.replaceChildren(
      ...options.map(({ insert, detail }) => {
        const item = h(
          "li",
          { class: "shard-slash-item shard-mention-item", attrs: { role: "option" } },
          h("code", null, insert),
          detail ? ` — ${detail}` : "",
        );
        item.dataset["mention"] = insert;
        item.addEventListener("mousedown", (event) => {
          event.preventDefault();
          this.completeMention(insert);
        });
        return item;
      }),
    );
    this.menu.hidden = options.length === 0;
  }

  private completeMention(insert: string): void {
    const caret = this.input.selectionStart ?? this.input.value.length;
    const before = this.input.value.slice(0, caret);
    const word = this.mentionWord() ?? "";
    const start = before.length - word.length;
    const after = this.input.value.slice(caret);
    const spacer = insert.endsWith(":") || insert.endsWith("/") ? "" : " ";
    this.input.value = `${before.slice(0, start)}${insert}${spacer}${after}`;
    const at = start + insert.length + spacer.length;
    this.input.setSelectionRange(at, at);
    this.input.focus();
    this.updateMenu();
  }

  private updateMenu(): void {
    const word = this.actions.mentionOptions ? this.mentionWord() : null;
    if (word !== null) return void this.updateMentions(word);
    this.mentionAsk += 1;
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
