"""Projection: the active branch of the log → the messages a provider sees.

Live context = the latest compaction summary (returned separately, it goes into the system
prompt) + the entries after its `first_kept_entry_id`. A tool call whose result never made it
into the log (a crash) gets a synthetic result here, so every request stays well-formed.
"""

from __future__ import annotations

from collections.abc import Sequence

from shard_core.types import (
    AssistantMessage,
    CompactionEntry,
    Message,
    MessageEntry,
    SessionEntry,
    TextBlock,
    ToolResultBlock,
    ToolResultEntry,
    UserMessage,
)

MISSING_RESULT = "[no result was recorded for this tool call: the agent process stopped first]"


def live_window(
    branch: Sequence[SessionEntry],
) -> tuple[CompactionEntry | None, list[SessionEntry]]:
    """The latest compaction on the branch and the entries the model still sees verbatim."""
    for i in range(len(branch) - 1, -1, -1):
        entry = branch[i]
        if isinstance(entry, CompactionEntry):
            first = entry.details.first_kept_entry_id
            ids = [e.id for e in branch]
            start = ids.index(first) if first in ids[:i] else i + 1
            kept: list[SessionEntry] = [
                e for e in branch[start:] if not isinstance(e, CompactionEntry)
            ]
            return entry, kept
    return None, list(branch)


def to_messages(entries: Sequence[SessionEntry]) -> list[Message]:
    """Messages in log order; tool results become user messages of tool_result blocks."""
    out: list[Message] = []
    answered = {e.details.tool_call_id for e in entries if isinstance(e, ToolResultEntry)}
    for entry in entries:
        if isinstance(entry, MessageEntry):
            out.append(entry.details.message)
            if isinstance(entry.details.message, AssistantMessage):
                out.extend(_synthetic_results(entry.details.message, answered))
        elif isinstance(entry, ToolResultEntry):
            result = entry.details.result
            block = ToolResultBlock(
                tool_call_id=entry.details.tool_call_id,
                content=result.content or [TextBlock(text="(no output)")],
                is_error=result.is_error,
            )
            out.append(UserMessage(content=[block]))
    return _drop_leading_orphans(out)


def _synthetic_results(message: AssistantMessage, answered: set[str]) -> list[Message]:
    missing = [c for c in message.tool_calls if c.id not in answered]
    if not missing:
        return []
    blocks = [
        ToolResultBlock(tool_call_id=c.id, content=[TextBlock(text=MISSING_RESULT)], is_error=True)
        for c in missing
    ]
    return [UserMessage(content=list(blocks))]


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
