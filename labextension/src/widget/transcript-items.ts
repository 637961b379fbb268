// Events → what the transcript shows: prompts, assistant bubbles (streamed deltas, then the
// completed message), tool cards, permission and ui dialogs, notices. Pure; each item carries a
// `sig` that changes exactly when its rendering must, so the view re-renders only those.
import { isFiniteNumber, isRecord, isString } from "../render/guards";
import type {
  Event,
  GoalUpdateEvent,
  HookRunCheckpoint,
  ImageBlock,
  PermissionRequestEvent,
  PermissionResolvedEvent,
  RewindEvent,
  TextBlock,
  ToolResult,
  UiRequestEvent,
  UiResolvedEvent,
} from "../wire";

export type Tone = "info" | "warn" | "error" | "success";
export type ToolStatus =
  "streaming" | "running" | "awaiting_permission" | "done" | "error" | "denied" | "aborted";

interface Base {
  readonly key: string;
  sig: string;
  /** left by a conversation rewind: no longer in what the agent's next request carries */
  rewound?: boolean;
}
export interface UserItem extends Base {
  readonly kind: "user";
  text: string;
  /** the images sent with the prompt (a text block stands for one whose blob is gone) */
  images: readonly (TextBlock | ImageBlock)[];
  /** the prompt's entry in the log: what "Rewind to here" and "Changes" name */
  entryId?: string | null;
}
export interface AssistantItem extends Base {
  readonly kind: "assistant";
  readonly turnId: string;
  text: string;
  thinking: string;
  streaming: boolean;
}
export interface ToolItem extends Base {
  readonly kind: "tool";
  readonly id: string;
  turnId: string;
  name: string;
  input: Readonly<Record<string, unknown>> | null;
  inputText: string;
  readOnly: boolean;
  result: ToolResult | null;
  /** the running tool's latest `tool_update` (output so far, progress), until the result */
  partial?: ToolResult | null;
  status: ToolStatus;
  /** how the gate decided this call, once decided (by a person, a rule, a grant, a policy) */
  decision: PermissionResolvedEvent | null;
}
export interface PermissionItem extends Base {
  readonly kind: "permission";
  readonly request: PermissionRequestEvent;
  resolved: PermissionResolvedEvent | null;
  open: boolean;
}
export interface UiItem extends Base {
  readonly kind: "ui";
  readonly request: UiRequestEvent;
  resolved: UiResolvedEvent | null;
  open: boolean;
}
export interface NoticeItem extends Base {
  readonly kind: "notice";
  readonly tone: Tone;
  readonly text: string;
}
/** A steer, shown with what became of it (its latest `steer_receipt`). */
export interface SteerItem extends Base {
  readonly kind: "steer";
  readonly steerId: string;
  text: string;
  /** the images sent with the steer (a text block stands for one whose blob is gone) */
  images: readonly (TextBlock | ImageBlock)[];
  status: "admitted" | "rejected" | "superseded" | "queued";
  reason: string | null;
}
/** Context injected without a turn: a note, a file, a cell's output. */
export interface ContextItem extends Base {
  readonly kind: "context";
  readonly contextKind: string;
  readonly label: string | null;
  readonly text: string;
}
/** A `/` command someone ran (in any client) and its output, or why it failed. */
export interface CommandItem extends Base {
  readonly kind: "command";
  readonly text: string;
  readonly ok: boolean;
  readonly markdown: string;
  readonly by: string | null;
}
/** A command hook's run (docs/HOOKS.md): a small card with its event, command and decision. */
export interface HookItem extends Base {
  readonly kind: "hook";
  readonly run: HookRunCheckpoint;
}
export type Item =
  | CommandItem
  | HookItem
  | UserItem
  | AssistantItem
  | ToolItem
  | PermissionItem
  | UiItem
  | NoticeItem
  | SteerItem
  | ContextItem;

export interface Pending {
  readonly permissions: readonly PermissionRequestEvent[];
  readonly ui: readonly UiRequestEvent[];
}

/** Events are trusted to match schema/event.json once they pass this cheap check. */
export function isEventLike(value: unknown): value is Event {
  return isRecord(value) && isString(value["type"]) && isFiniteNumber(value["seq"]);
}

export function deriveItems(events: readonly unknown[], pending: Pending): Item[] {
  const builder = new ItemBuilder();
  for (const event of events) if (isEventLike(event)) builder.add(event);
  return builder.finish(pending);
}

class ItemBuilder {
  private readonly items: Item[] = [];
  private readonly byKey = new Map<string, Item>();
  private readonly streaming = new Map<string, AssistantItem>();
  private readonly denied = new Set<string>();
  private readonly left = new Map<string, Item[]>();

  add(e: Event): void {
    switch (e.type) {
      case "turn_start":
        return void this.put({
          kind: "user",
          key: `user:${e.turn_id}`,
          sig: `${e.seq}`,
          text: e.prompt,
          images: e.images ?? [], // an event logged before prompts carried their images has none
          entryId: e.entry_id ?? null,
        });
      case "message_delta":
        return this.delta(e.turn_id, e.channel, e.delta, e.tool_call_id, e.seq);
      case "message_complete":
        return this.complete(e.turn_id, e.message.content, e.seq);
      case "tool_call": {
        const tool = this.tool(e.call.id, e.turn_id, e.seq);
        Object.assign(tool, { name: e.call.name, input: e.call.input, readOnly: e.read_only });
        if (tool.status === "streaming") tool.status = "running";
        return;
      }
      case "tool_result": {
        const tool = this.tool(e.tool_call_id, e.turn_id, e.seq);
        tool.name ||= e.name;
        tool.result = e.result;
        tool.partial = null;
        const aborted = isRecord(e.result.details) && e.result.details["aborted"] === true;
        tool.status = this.denied.has(e.tool_call_id)
          ? "denied"
          : aborted
            ? "aborted"
            : e.result.is_error
              ? "error"
              : "done";
        return;
      }
      case "tool_update": {
        const tool = this.tool(e.tool_call_id, e.turn_id, e.seq);
        if (tool.result !== null) return; // the result always wins over a late update
        tool.name ||= e.name;
        tool.partial = e.partial;
        // the Python widget keeps a call's updates at one seq: the state itself marks the change
        tool.sig += `:${signature(JSON.stringify(e.partial))}`;
        if (tool.status === "streaming" || tool.status === "awaiting_permission")
          tool.status = "running"; // it reports progress, so it runs
        return;
      }
      case "permission_request":
        return this.permissionRequest(e);
      case "permission_resolved":
        return this.permissionResolved(e);
      case "ui_request":
        return void this.put({
          kind: "ui",
          key: `ui:${e.request_id}`,
          sig: `${e.seq}`,
          request: e,
          resolved: null,
          open: false,
        });
      case "ui_resolved": {
        const item = this.byKey.get(`ui:${e.request_id}`);
        if (item?.kind === "ui") Object.assign(item, { resolved: e, sig: `${item.sig},${e.seq}` });
        return;
      }
      case "turn_end":
        return this.turnEnd(e.turn_id, e.reason, e.error ?? null, e.seq);
      case "steer_receipt": {
        // one item per steer, where it was first reported; later receipts update its state
        const item = this.put({
          kind: "steer",
          key: `steer:${e.steer_id}`,
          sig: `${e.seq}`,
          steerId: e.steer_id,
          text: e.text,
          images: e.images ?? [], // a receipt logged before steers carried images has none
          status: e.status,
          reason: e.reason ?? null,
        });
        item.sig += `:${e.status}`;
        return;
      }
      case "context_injected":
        return void this.put({
          kind: "context",
          key: `context:${e.entry_id}`,
          sig: `${e.seq}`,
          contextKind: e.kind,
          label: e.label ?? null,
          text: e.text,
        });
      case "command_output":
        return void this.put({
          kind: "command",
          key: `command:${e.seq}`,
          sig: `${e.seq}`,
          text: e.text,
          ok: e.ok,
          markdown: e.markdown,
          by: e.label ?? e.client_id ?? null,
        });
      case "rewind": // every client marks the point and says what was put back
        this.conversationRewind(e);
        return void this.put({
          kind: "command",
          key: `rewind:${e.seq}`,
          sig: `${e.seq}`,
          text: `rewind (${e.scope === "both" ? "files and conversation" : e.scope === "code" ? "files" : "conversation"})`,
          ok: true,
          markdown: e.message || `Rewound to before entry ${e.to_entry_id}.`,
          by: null,
        });
      case "hook_run":
        return void this.put({
          kind: "hook",
          key: `hook:${e.entry_id}`,
          sig: `${e.seq}`,
          run: e.run,
        });
      case "compaction":
        return this.notice(
          e.seq,
          "info",
          `Context compacted (${e.reason}): ${e.tokens_before} → ${e.tokens_after} tokens, ${e.entries_folded} entries folded by ${e.compactor}.`,
        );
      case "goal_update":
        return this.notice(e.seq, e.action === "stopped" ? "warn" : "info", goalLine(e));
      case "restarted":
        return this.notice(
          e.seq,
          "warn",
          `Agent restarted and reloaded ${e.entries} entries.${e.lost.length ? ` Lost: ${e.lost.join(", ")}.` : ""}`,
        );
      case "error":
        return this.notice(
          e.seq,
          "error",
          `${e.code}: ${e.message}${e.retryable ? " (retryable)" : ""}`,
        );
      default:
        return; // usage and status feed the header and usage line; unknown types are ignored
    }
  }

  finish(pending: Pending): Item[] {
    const openPermissions = new Set(pending.permissions.map((p) => p.request_id));
    const openUi = new Set(pending.ui.map((p) => p.request_id));
    for (const request of pending.permissions) {
      if (!this.byKey.has(`perm:${request.request_id}`)) this.permissionRequest(request);
    }
    for (const request of pending.ui) {
      const key = `ui:${request.request_id}`;
      if (!this.byKey.has(key))
        this.put({ kind: "ui", key, sig: `${request.seq}`, request, resolved: null, open: false });
    }
    const folded = (item: Item): boolean => {
      if (item.kind !== "permission" || item.resolved === null) return false;
      const tool = this.byKey.get(`tool:${item.request.tool_call_id ?? ""}`);
      return tool?.kind === "tool" && tool.decision !== null;
    };
    const kept = this.items.filter((item) => !folded(item));
    this.items.splice(0, this.items.length, ...kept);
    for (const item of this.items) {
      if (item.kind === "permission" || item.kind === "ui") {
        const ids = item.kind === "permission" ? openPermissions : openUi;
        item.open = item.resolved === null && ids.has(item.request.request_id);
        item.sig += item.open ? ":open" : ":closed";
      } else if (item.kind === "assistant" || item.kind === "tool") {
        item.sig += `:${item.kind === "tool" ? item.status : String(item.streaming)}`;
      }
    }
    return this.items;
  }

  private put<T extends Item>(item: T): T {
    const existing = this.byKey.get(item.key);
    if (existing) {
      Object.assign(existing, item, { sig: `${existing.sig},${item.sig}` });
      return existing as T;
    }
    this.items.push(item);
    this.byKey.set(item.key, item);
    return item;
  }

  private delta(
    turnId: string,
    channel: string,
    text: string,
    toolCallId: string | null,
    seq: number,
  ): void {
    if (channel === "tool_call") {
      if (!toolCallId) return;
      const tool = this.tool(toolCallId, turnId, seq);
      tool.inputText += text;
      tool.sig += `.${text.length}`;
      return;
    }
    let item = this.streaming.get(turnId);
    if (!item) {
      item = this.put({
        kind: "assistant",
        key: `assistant:${seq}`,
        sig: "",
        turnId,
        text: "",
        thinking: "",
        streaming: true,
      });
      this.streaming.set(turnId, item);
    }
    if (channel === "thinking") item.thinking += text;
    else item.text += text;
    item.sig += `${seq}.${text.length},`;
  }

  private complete(turnId: string, content: readonly unknown[], seq: number): void {
    let text = "";
    let thinking = "";
    for (const block of content) {
      if (!isRecord(block)) continue;
      if (block["type"] === "text" && isString(block["text"])) text += block["text"];
      if (block["type"] === "thinking" && isString(block["thinking"]))
        thinking += block["thinking"];
    }
    const item = this.streaming.get(turnId);
    this.streaming.delete(turnId);
    if (item) {
      Object.assign(item, { text, thinking, streaming: false, sig: `${item.sig}${seq}` });
    } else if (text || thinking) {
      this.put({
        kind: "assistant",
        key: `assistant:${seq}`,
        sig: `${seq}`,
        turnId,
        text,
        thinking,
        streaming: false,
      });
    }
  }

  private tool(id: string, turnId: string, seq: number): ToolItem {
    const key = `tool:${id}`;
    const existing = this.byKey.get(key);
    if (existing?.kind === "tool") {
      existing.sig += `,${seq}`;
      return existing;
    }
    const item: ToolItem = {
      kind: "tool",
      key,
      sig: `${seq}`,
      id,
      turnId,
      name: "",
      input: null,
      inputText: "",
      readOnly: false,
      result: null,
      partial: null,
      status: "streaming",
      decision: null,
    };
    return this.put(item);
  }

  private permissionRequest(e: PermissionRequestEvent): void {
    this.put({
      kind: "permission",
      key: `perm:${e.request_id}`,
      sig: `${e.seq}`,
      request: e,
      resolved: null,
      open: false,
    });
    const tool = e.tool_call_id ? this.byKey.get(`tool:${e.tool_call_id}`) : undefined;
    if (tool?.kind === "tool" && tool.result === null) {
      tool.status = "awaiting_permission";
      tool.sig += `,${e.seq}`;
    }
  }

  private permissionResolved(e: PermissionResolvedEvent): void {
    const item = this.byKey.get(`perm:${e.request_id}`);
    if (item?.kind === "permission")
      Object.assign(item, { resolved: e, sig: `${item.sig},${e.seq}` });
    const toolId =
      (item?.kind === "permission" ? item.request.tool_call_id : null) ?? e.tool_call_id;
    const tool = toolId ? this.byKey.get(`tool:${toolId}`) : undefined;
    if (tool?.kind === "tool") Object.assign(tool, { decision: e, sig: `${tool.sig},d${e.seq}` });
    if (!toolId || tool?.kind !== "tool" || tool.result !== null) return;
    if (e.decision === "deny") this.denied.add(toolId);
    tool.status = e.decision === "deny" ? "denied" : "running";
    tool.sig += `,${e.seq}`;
  }

  private turnEnd(turnId: string, reason: string, error: string | null, seq: number): void {
    const item = this.streaming.get(turnId);
    if (item) {
      item.streaming = false;
      item.sig += `${seq}`;
      this.streaming.delete(turnId);
    }
    for (const tool of this.items) {
      if (
        tool.kind === "tool" &&
        tool.turnId === turnId &&
        tool.result === null &&
        tool.status !== "denied"
      ) {
        tool.status = "aborted";
        tool.sig += `,${seq}`;
      }
    }
    if (reason !== "completed") {
      const tone: Tone = reason === "error" ? "error" : "warn";
      this.notice(seq, tone, `Turn ended: ${reason}${error ? ` — ${error}` : ""}`);
    }
  }

  /** A rewind of the conversation leaves the turns from its target on; undoing it (a rewind
   * to before that rewind's own entry) brings them back. */
  private conversationRewind(e: RewindEvent): void {
    if (e.scope === "code") return;
    const undone = this.left.get(e.to_entry_id);
    if (undone !== undefined) {
      for (const item of undone) Object.assign(item, { rewound: false, sig: `${item.sig}:back` });
      return;
    }
    const start = this.items.findIndex((i) => i.kind === "user" && i.entryId === e.to_entry_id);
    if (start < 0) return;
    const gone = this.items.slice(start).filter((i) => !i.rewound);
    for (const item of gone) Object.assign(item, { rewound: true, sig: `${item.sig}:left` });
    this.left.set(e.entry_id, gone);
  }

  private notice(seq: number, tone: Tone, text: string): void {
    this.put({ kind: "notice", key: `notice:${seq}`, sig: `${seq}`, tone, text });
  }
}

/** A short fingerprint of a text (FNV-1a), for item signatures. */
/** A goal change in words: "Goal set: ...", "Goal met: ...", "Goal: stopped: 3 turns ran ...". */
export function goalLine(e: GoalUpdateEvent): string {
  const text = e.text ?? "";
  const detail = e.message ? ` (${e.message})` : "";
  switch (e.action) {
    case "set":
      return `Goal set: ${text}`;
    case "done":
      return `Goal met${e.source === "model" ? ", the agent reports" : ""}: ${text}${detail}`;
    case "cleared":
      return "Goal cleared.";
    case "continued":
      return `Going on toward the goal${detail}.`;
    default:
      return `Goal not met: ${e.message || "stopped"}.`;
  }
}

function signature(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(36);
}
