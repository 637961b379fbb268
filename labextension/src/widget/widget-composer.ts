// The agent widget's composer: the Lab chat's Composer and ComposerImages on the widget's model.
// Enter sends a prompt when the agent is idle and a steer while a turn runs, the pasted images
// with either; a line that starts with `/` is a command. `@` mentions are completed and resolved
// by the widget's Python side, in the notebook's own kernel (`@var:` from its namespace by the
// summariser `%%shard` uses, `@file:` from the agent's folder, `@cell:` and `@output:` from the
// notebook: as the page shows it when the host offers its cells, host-cells.ts, else as saved);
// a refusal keeps the text and the images in the composer and says why.
import { isRecord, isString } from "../render/guards";
import type { ImageBlock } from "../wire";
import { isBusy } from "./agent-header";
import * as commands from "./commands";
import { Composer, type MentionOption } from "./composer";
import { ComposerImages } from "./composer-images";
import { notebookCellsOf, outline } from "./host-cells";
import { getString, type WidgetModel } from "./model";
import { asReply } from "./replies";

const ANSWER_MS = 5_000;
const CELL_MENTION = /(^|[\s(])@(cell|output):/;

export interface WidgetComposer {
  readonly el: HTMLElement;
  readonly composer: Composer;
  /** A reply from the Python side; true when it answered this composer (then it is handled). */
  onReply(message: unknown): boolean;
  /** The agent's status changed: idle sends prompts, busy steers. */
  refreshBusy(): void;
  /** The transcript changed: the state of the steer sent last follows its receipt. */
  refreshSteer(events: readonly unknown[]): void;
}

interface Sent {
  readonly text: string;
  readonly images: readonly ImageBlock[];
}

function optionsOf(data: Readonly<Record<string, unknown>>): MentionOption[] {
  const listed = data["options"];
  if (!Array.isArray(listed)) return [];
  return listed
    .filter((o): o is Record<string, unknown> => isRecord(o) && isString(o["insert"]))
    .map((o) => ({
      insert: String(o["insert"]),
      detail: isString(o["detail"]) ? o["detail"] : "",
    }));
}

export function renderWidgetComposer(
  model: WidgetModel,
  send: (command: commands.OutgoingCommand) => void,
  where: HTMLElement,
): WidgetComposer {
  /** The cells as the page shows them go first when the message mentions one. */
  const sendCells = (text: string): void => {
    const notebook = CELL_MENTION.test(text) ? notebookCellsOf(where) : null;
    if (notebook) send(commands.notebookCells(notebook));
  };
  const sent = new Map<string, Sent>(); // prompt and steer ids → what to put back on a refusal
  let lastSteer: string | null = null;
  const asked = new Map<string, (options: MentionOption[]) => void>();
  const composer: Composer = new Composer({
    prompt: (text) => {
      if (text.startsWith("/")) {
        const label = getString(model, "client_label") || null;
        return send(commands.slash(text, commands.clientId(model), label));
      }
      const message = commands.prompt(text, images.take());
      sent.set(message.id, { text, images: message.images });
      sendCells(text);
      composer.showState(
        message.images.length > 0 ? "Sending the prompt and its images…" : "Sending…",
        "info",
      );
      send(message);
    },
    steer: (text) => {
      const message = commands.steer(text, images.take());
      lastSteer = message.steer_id;
      sent.set(message.id, { text, images: message.images ?? [] });
      sendCells(text);
      send(message);
    },
    wantCommands: () => send(commands.listCommands()),
    mentionOptions: (word) =>
      new Promise<MentionOption[]>((resolve) => {
        const notebook = /^@(cell|output):/.test(word) ? notebookCellsOf(where) : null;
        const message = commands.mentionOptions(word, notebook ? outline(notebook) : null);
        const timer = setTimeout(() => finish([]), ANSWER_MS);
        const finish = (options: MentionOption[]): void => {
          clearTimeout(timer);
          asked.delete(message.id);
          resolve(options);
        };
        asked.set(message.id, finish);
        send(message);
      }),
  });
  const images = new ComposerImages(composer.input, (why) => composer.showState(why, "error"));
  composer.el.prepend(images.el);
  composer.el.classList.add("shard-widget-composer");

  const onReply = (message: unknown): boolean => {
    const reply = asReply(message);
    if (reply === null || reply.command_id === null) return false;
    const answer = asked.get(reply.command_id);
    if (answer) {
      answer(reply.ok ? optionsOf(reply.data) : []);
      return true;
    }
    const what = sent.get(reply.command_id);
    if (what === undefined) return false;
    sent.delete(reply.command_id);
    if (reply.ok) {
      if (reply.command === "prompt") composer.showState("", "info");
      return true;
    }
    if (!composer.input.value) composer.input.value = what.text;
    images.restore(what.images);
    const verb = reply.command === "steer" ? "Steer" : "Prompt";
    composer.showState(`${verb} not sent: ${reply.message}`, "error");
    return true;
  };
  const refreshBusy = (): void => composer.setBusy(isBusy(getString(model, "status")));
  const refreshSteer = (events: readonly unknown[]): void => {
    for (let i = events.length - 1; lastSteer !== null && i >= 0; i -= 1) {
      const e = events[i];
      if (isRecord(e) && e["type"] === "steer_receipt" && e["steer_id"] === lastSteer)
        return composer.showReceipt(e);
    }
  };
  refreshBusy();
  return { el: composer.el, composer, onReply, refreshBusy, refreshSteer };
}
