// The composer of the Lab chat and of the agent widget: a prompt box that sends a prompt when the
// agent is idle and a steer while a turn runs (the steer's state shown under it), with
// completion for `/` commands. The commands are the agent's own (`setCommands`, from its
// `list_commands` reply): bundled, the kernel's and every extension's alike; the composer keeps
// no list of its own. An `@` word before the caret opens the mention menu (`mentionOptions`:
// files, cells, outputs, variables); Tab or a click completes it, the arrow keys choose another
// entry (which Enter takes too; without them Enter sends), Escape closes it.
import { button, h } from "../render/dom";
import { isString } from "../render/guards";
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
  private selected = 0;
  private moved = false;

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

  /** What became of the steer this composer sent (its latest `steer_receipt`). */
  showReceipt(receipt: Readonly<Record<string, unknown>>): void {
    const reason = isString(receipt["reason"]) ? ` — ${receipt["reason"]}` : "";
    const states: Record<string, [string, "info" | "success" | "error"]> = {
      admitted: ["Steer admitted: it is in the agent's next model request.", "success"],
      rejected: [`Steer rejected${reason}`, "error"],
      superseded: [`Steer superseded${reason}`, "info"],
      queued: [`Steer queued${reason}`, "info"],
    };
    const state = states[String(receipt["status"])];
    if (state) this.showState(...state);
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
    const items = this.menu.hidden ? [] : [...this.menu.querySelectorAll<HTMLElement>("li")];
    const chosen = items[this.selected];
    if ((event.key === "ArrowDown" || event.key === "ArrowUp") && items.length > 0) {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      this.select((this.selected + step + items.length) % items.length);
      this.moved = true;
    } else if (
      chosen &&
      (event.key === "Tab" || (event.key === "Enter" && !event.shiftKey && this.moved))
    ) {
      event.preventDefault();
      if (chosen.dataset["mention"]) this.completeMention(chosen.dataset["mention"]);
      else if (chosen.dataset["command"]) this.complete(chosen.dataset["command"]);
    } else if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      this.submit();
    } else if (event.key === "Escape") {
      this.menu.hidden = true;
    }
  }

  /** Marks the menu's `index`th item as the one Tab or Enter takes. */
  private select(index: number): void {
    this.selected = index;
    this.menu.querySelectorAll<HTMLElement>("li").forEach((item, n) => {
      item.setAttribute("aria-selected", String(n === index));
      item.classList.toggle("shard-slash-item-selected", n === index);
      if (n === index) item.scrollIntoView?.({ block: "nearest" });
    });
  }

  private showMenu(items: readonly HTMLElement[]): void {
    this.menu.replaceChildren(...items);
    this.menu.hidden = items.length === 0;
    this.moved = false;
    this.select(0);
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
    this.showMenu(
      options.map(({ insert, detail }) =>
        menuItem(insert, detail ? ` — ${detail}` : "", "mention", insert, () =>
          this.completeMention(insert),
        ),
      ),
    );
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
    this.showMenu(
      matches.map(({ name, description: help, hint }) =>
        menuItem(hint ? `${name.trim()} ${hint}` : name.trim(), ` — ${help}`, "command", name, () =>
          this.complete(name),
        ),
      ),
    );
  }

  private complete(name: string): void {
    this.input.value = name;
    this.input.focus();
    this.updateMenu();
  }
}

/** One entry of the `/` or `@` menu: `data-<kind>` holds what it completes; a click takes it. */
function menuItem(
  shown: string,
  detail: string,
  kind: "mention" | "command",
  value: string,
  pick: () => void,
): HTMLElement {
  const extra = kind === "mention" ? " shard-mention-item" : "";
  const item = h(
    "li",
    { class: `shard-slash-item${extra}`, attrs: { role: "option" } },
    h("code", null, shown),
    detail,
  );
  item.dataset[kind] = value;
  item.addEventListener("mousedown", (event) => {
    event.preventDefault();
    pick();
  });
  return item;
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}
