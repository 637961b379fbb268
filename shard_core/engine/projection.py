"""Projection: the active branch of the log → the messages a provider sees.

The live context (see `compaction.live_context`) goes in; the summary itself travels in the
system prompt. A tool call whose result never made it
into the log (a crash) gets a synthetic result here, so every request stays well-formed.
"""

from __future__ import annotations

from collections.abc import Sequence

from shard_core.types import (
    AssistantMessage,
    Message,
    MessageEntry,
    SessionEntry,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolResultEntry,
    UserMessage,
)

MISSING_RESULT = "[no result was recorded for this tool call: the agent process stopped first]"


class Projector:
    """Entries → messages in log order (tool results become user messages of tool_result
    blocks), with a per-entry cache: entries never change, so each is projected once."""

    def __init__(self) -> None:
        self._cache: dict[str, tuple[Message | None, tuple[ToolCallBlock, ...]]] = {}

    def _one(self, entry: SessionEntry) -> tuple[Message | None, tuple[ToolCallBlock, ...]]:
        found = self._cache.get(entry.id)
        if found is None:
            found = _project(entry)
            self._cache[entry.id] = found
        return found

    def messages(self, entries: Sequence[SessionEntry]) -> list[Message]:
        out: list[Message] = []
        answered = {e.details.tool_call_id for e in entries if isinstance(e, ToolResultEntry)}
        for entry in entries:
            message, calls = self._one(entry)
            if message is None:
                continue
            out.append(message)
            missing = [c for c in calls if c.id not in answered]
            if missing:
                out.append(_synthetic_results(missing))
        return _drop_leading_orphans(out)


def _project(entry: SessionEntry) -> tuple[Message | None, tuple[ToolCallBlock, ...]]:
    if isinstance(entry, MessageEntry):
        message = entry.details.message
        calls = tuple(message.tool_calls) if isinstance(message, AssistantMessage) else ()
        return message, calls
    if isinstance(entry, ToolResultEntry):
        result = entry.details.result
        block = ToolResultBlock(
            tool_call_id=entry.details.tool_call_id,
            content=result.content or [TextBlock(text="(no output)")],
            is_error=result.is_error,
        )
        return UserMessage(content=[block]), ()
    return None, ()


def _synthetic_results(missing: Sequence[ToolCallBlock]) -> Message:
    blocks = [
        ToolResultBlock(tool_call_id=c.id, content=[TextBlock(text=MISSING_RESULT)], is_error=True)
        for c in missing
    ]
    return UserMessage(content=list(blocks))


def _drop_leading_orphans(messages: list[Message]) -> list[Message]:
    """A kept tail never starts with tool results whose calls were folded into a summary."""
    start = 0
    while start < len(messages) and _only_tool_results(messages[start]):
        start += 1
    return messages[start:]


def _only_tool_results(message: Message) -> bool:
    return isinstance(message, UserMessage) and all(
        isinstance(b, ToolResultBlock) for b in message.content
    )
