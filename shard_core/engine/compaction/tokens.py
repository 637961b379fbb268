"""Token estimates from character counts: offline, deterministic, about four characters a token.

No tokenizer library: tiktoken downloads its tables at run time and fails offline, and a budget
only needs to be conservative, not exact. Images count as a flat 1,200 tokens.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from shard_core.types import (
    CheckpointEntry,
    CompactionEntry,
    ContentBlock,
    MessageEntry,
    PermissionEntry,
    ResultContent,
    SessionEntry,
    SessionHeaderEntry,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolResultEntry,
)

CHARS_PER_TOKEN = 4
IMAGE_TOKENS = 1200
ENTRY_OVERHEAD_TOKENS = 4
"""Role markers and framing a provider adds around every message."""


def estimate_text(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


def result_chars(content: Iterable[ResultContent]) -> int:
    chars = 0
    for block in content:
        chars += len(block.text) if block.type == "text" else IMAGE_TOKENS * CHARS_PER_TOKEN
    return chars


def json_chars(value: object) -> int:
    """About len(json.dumps(value)), without building the string."""
    if isinstance(value, dict):  # first: what a tool call's input is
        chars = 2
        # typed by annotation, not `cast`: that is a function call at run time, per tool call
        mapping: dict[str, object] = value  # pyright: ignore[reportUnknownVariableType]
        for key, item in mapping.items():
            chars += len(key) + 4 + (len(item) + 2 if isinstance(item, str) else json_chars(item))
        return chars
    if isinstance(value, str):
        return len(value) + 2
    if isinstance(value, list):
        chars = 2
        items: list[object] = value  # pyright: ignore[reportUnknownVariableType]
        for item in items:
            chars += json_chars(item) + 1
        return chars
    return len(str(value))


def message_chars(content: Sequence[ContentBlock]) -> int:
    chars = 0
    for block in content:
        # the exact class first: a failed isinstance on a model class runs the metaclass's check
        if type(block) is TextBlock:
            chars += len(block.text)
        elif type(block) is ToolCallBlock:
            chars += len(block.name) + json_chars(block.input)
        else:
            chars += _block_chars(block)
    return chars


def _block_chars(block: ContentBlock) -> int:
    """`message_chars` of one block of any class (a subclass, a result, thinking, an image)."""
    if isinstance(block, TextBlock):
        return len(block.text)
    if isinstance(block, ToolCallBlock):
        return len(block.name) + json_chars(block.input)
    if isinstance(block, ToolResultBlock):
        return result_chars(block.content)
    if isinstance(block, ThinkingBlock):
        return len(block.thinking)
    return IMAGE_TOKENS * CHARS_PER_TOKEN


CONTEXT_TYPES = frozenset({"message", "tool_result"})
TYPE_OF: dict[type[SessionEntry], str] = {
    cls: cls.model_fields["type"].default
    for cls in (
        SessionHeaderEntry, MessageEntry, ToolResultEntry, CompactionEntry, CheckpointEntry,
        PermissionEntry,
    )
}  # fmt: skip
"""Each entry class's `type` (its Literal's only value). Reading it off the class spares the
walks over a whole branch an attribute read per entry: that is a lookup in the entry's own
`__dict__`, an object such a walk has not touched yet (several cache misses, most of what
`live_window` cost on a 28k-entry branch)."""


def entry_type(entry: SessionEntry) -> str:
    """`entry.type`, from the class when it is one of the SessionEntry classes."""
    return TYPE_OF.get(type(entry)) or entry.type


def is_context(entry: SessionEntry) -> bool:
    """Does the entry reach the model as a message? (Headers, checkpoints, permissions don't.)"""
    return entry_type(entry) in CONTEXT_TYPES


def estimate_entry(entry: SessionEntry) -> int:
    """Tokens the entry costs in a provider request; 0 for entries that are not messages."""
    # isinstance of the entry's own class is a pointer test; a failed one on a model class
    # runs the metaclass's check: so a message is never tested against ToolResultEntry
    if type(entry) is not MessageEntry and isinstance(entry, ToolResultEntry):
        content = entry.details.result.content
        first = content[0] if len(content) == 1 else None
        chars = len(first.text) if type(first) is TextBlock else result_chars(content)
    elif isinstance(entry, MessageEntry):
        chars = message_chars(entry.details.message.content)
    else:
        return 0
    return -(-chars // CHARS_PER_TOKEN) + ENTRY_OVERHEAD_TOKENS


def estimate_entries(entries: Sequence[SessionEntry]) -> int:
    return sum(map(estimate_entry, entries))
