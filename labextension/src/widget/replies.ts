// Python → browser custom messages: a `reply` to one command (shard_core.protocol.CommandReply),
// and the transcript's `append` / `delta` operations (see transcript-ops.ts).
import { isRecord, isString } from "../render/guards";
import type { CommandReply } from "../wire";

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
