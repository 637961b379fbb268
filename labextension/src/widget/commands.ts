// Commands the browser sends to the kernel side, in the protocol's command shape
// (schema/command.json); the Python widget validates them with the same pydantic models.
import type { ImageBlock, PermissionResponseCommand, UiResponseCommand } from "../wire";
import type { PermissionAnswer, UiAnswer } from "../render/index";
import type { WidgetModel } from "./model";
import { getString } from "./model";
import { pageLabel } from "../client/identity";
import type { HostNotebook } from "./host-cells";

export interface AbortMessage {
  readonly type: "abort";
  readonly id: string;
}
export interface SteerMessage {
  readonly type: "steer";
  readonly id: string;
  readonly text: string;
  /** names the steer in the `steer_receipt` every client gets */
  readonly steer_id: string;
  /** pasted images; left out when there are none */
  readonly images?: readonly ImageBlock[];
}
export interface PromptMessage {
  readonly type: "prompt";
  readonly id: string;
  readonly text: string;
  readonly images: readonly ImageBlock[];
}
/** The widget's own question to its Python side (not an agent command): what completes the
 * `@` word being typed; the reply's `data.options` lists `{insert, detail}`. */
export interface MentionOptionsMessage {
  readonly type: "mention_options";
  readonly id: string;
  readonly word: string;
  /** the notebook the widget is in, as the page shows it (outputs as their types only) */
  readonly notebook?: HostNotebook;
}
/** The widget's own message: the cells the next prompt's or steer's `@cell:`/`@output:` read
 * (the notebook as the page shows it, unsaved edits included). */
export interface NotebookCellsMessage {
  readonly type: "notebook_cells";
  readonly id: string;
  readonly notebook: HostNotebook;
}
export interface InjectMessage {
  readonly type: "inject";
  readonly id: string;
  readonly text: string;
  readonly kind: "note" | "file" | "output" | "variable";
  readonly label: string | null;
}
export interface SetModeMessage {
  readonly type: "set_mode";
  readonly id: string;
  readonly mode: string;
}
export interface SlashMessage {
  readonly type: "slash";
  readonly id: string;
  readonly text: string;
  readonly client_id: string | null;
  readonly label: string | null;
}
export interface ListCommandsMessage {
  readonly type: "list_commands";
  readonly id: string;
}
type WithId<T> = T & { readonly id: string };
export type OutgoingCommand =
  | WithId<PermissionResponseCommand>
  | WithId<UiResponseCommand>
  | AbortMessage
  | SteerMessage
  | PromptMessage
  | MentionOptionsMessage
  | NotebookCellsMessage
  | InjectMessage
  | SetModeMessage
  | SlashMessage
  | ListCommandsMessage;

const PAGE_CLIENT_ID = `widget-${randomId()}`;
let counter = 0;

function randomId(): string {
  const bytes = new Uint8Array(6);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The human label a host set (`client_label`), else this tab's ("alice · Tab 3f2a"), sent with
 * answers so others see who answered (and a saved transcript names a person, not an id). */
function withLabel<T extends object>(model: WidgetModel, command: T): T & { label: string | null } {
  return { ...command, label: getString(model, "client_label") || pageLabel() };
}

/** The id this browser answers as: the `client_id` trait when the host set one. */
export function clientId(model: WidgetModel): string {
  return getString(model, "client_id") || PAGE_CLIENT_ID;
}

export function nextCommandId(): string {
  counter += 1;
  return `${PAGE_CLIENT_ID}-${counter}`;
}

export function permissionResponse(
  model: WidgetModel,
  answer: PermissionAnswer,
): WithId<PermissionResponseCommand> {
  return withLabel(model, {
    type: "permission_response",
    id: nextCommandId(),
    request_id: answer.requestId,
    decision: answer.decision,
    client_id: clientId(model),
    reason: answer.reason,
    rule: answer.rule,
    scope: answer.scope,
  });
}

export function uiResponse(model: WidgetModel, answer: UiAnswer): WithId<UiResponseCommand> {
  return withLabel(model, {
    type: "ui_response" as const,
    id: nextCommandId(),
    request_id: answer.requestId,
    value: answer.value,
    client_id: clientId(model),
  });
}

export const abort = (): AbortMessage => ({ type: "abort", id: nextCommandId() });
export const steer = (text: string, images: readonly ImageBlock[] = []): SteerMessage => ({
  type: "steer",
  id: nextCommandId(),
  text,
  steer_id: `steer-${randomId()}`,
  ...(images.length > 0 ? { images } : {}),
});
/** Starts a turn (the widget's composer while the agent is idle). */
export const prompt = (text: string, images: readonly ImageBlock[] = []): PromptMessage => ({
  type: "prompt",
  id: nextCommandId(),
  text,
  images,
});
export const mentionOptions = (
  word: string,
  notebook: HostNotebook | null = null,
): MentionOptionsMessage => ({
  type: "mention_options",
  id: nextCommandId(),
  word,
  ...(notebook ? { notebook } : {}),
});
export const notebookCells = (notebook: HostNotebook): NotebookCellsMessage => ({
  type: "notebook_cells",
  id: nextCommandId(),
  notebook,
});
/** Context the agent's next request carries; no turn starts. */
export const inject = (
  text: string,
  kind: InjectMessage["kind"],
  label: string | null = null,
): InjectMessage => ({ type: "inject", id: nextCommandId(), text, kind, label });
export const setMode = (mode: string): SetModeMessage => ({
  type: "set_mode",
  id: nextCommandId(),
  mode,
});
/** A `/` command: its output arrives as a `command_output` event in every client's transcript. */
export const slash = (
  text: string,
  clientId: string | null = null,
  label: string | null = null,
): SlashMessage => ({ type: "slash", id: nextCommandId(), text, client_id: clientId, label });
/** Ask the agent for its slash commands: the reply's `data.commands` lists them. */
export const listCommands = (): ListCommandsMessage => ({
  type: "list_commands",
  id: nextCommandId(),
});
