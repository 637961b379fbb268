// Python → browser custom messages: a `reply` to one command (shard_core.protocol.CommandReply),
// and the transcript's `append` / `delta` operations (see transcript-ops.ts).
import { isRecord, isString } from "../render/guards";
import type { CommandReply, SlashCommandInfo } from "../wire";

export function asReply(message: unknown): CommandReply | null {
  if (!isRecord(message) || message["type"] !== "reply") return null;
  if (typeof message["ok"] !== "boolean" || !isString(message["command"])) return null;
  return {
    type: "reply",
    ok: message["ok"],
    command: message["command"],
    command_id: isString(message["command_id"]) ? message["command_id"] : null,
    message: isString(message["message"]) ? message["message"] : "",
    data: isRecord(message["data"]) ? { ...message["data"] } : {},
  };
}

/** The slash commands a `list_commands` reply names (each checked; a malformed one is left out). */
export function commandsOf(reply: CommandReply): SlashCommandInfo[] {
  const listed = reply.data["commands"];
  if (reply.command !== "list_commands" || !reply.ok || !Array.isArray(listed)) return [];
  return listed.filter(
    (c): c is SlashCommandInfo =>
      isRecord(c) && isString(c["name"]) && isString(c["description"]) && isString(c["extension"]),
  );
}
