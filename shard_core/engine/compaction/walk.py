"""walk: a cold compaction's per-entry work in one pass — the scan for the cut and the blocks.

`scan_window` (token estimates, safe boundaries) and `normalize` (look-ahead, then blocks) each
walk every entry of the window; on a 28k-entry session those walks were most of a compaction.
`walk_window` does both in one: each entry's blocks are made as it is read, a bash call's block
is filled in when its result arrives, and the kinds of the blocks are indexed on the way for
the extractors (context.py's BlockIndex).

For a safe cut the blocks of the window's first k entries are the first `offsets[k]` blocks
(nothing before a safe cut is answered after it). That needs each call id made and answered at
most once, a bash call's result after the call: a window that breaks either (a crash, a replay)
is `regular = False`, and its blocks come from `normalize` itself. The scan is exact either way.
tests/unit/engine/compaction/test_walk.py holds both to `normalize` and `scan_window`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from shard_core.engine.compaction.context import BlockIndex, Indexer
from shard_core.engine.compaction.cut import Scan, scan_entry, scan_rows
from shard_core.engine.compaction.normalize import (
    BASH_TOOLS,
    SKIPPED_TOOLS,
    bash_block,
    bash_command,
    bash_output_block,
    call_block,
    normalize,
    result_block,
    result_text,
    said_block,
    thinking_block,
)
from shard_core.engine.compaction.tokens import (
    CHARS_PER_TOKEN,
    ENTRY_OVERHEAD_TOKENS,
    IMAGE_TOKENS,
    json_chars,
    result_chars,
)
from shard_core.types import (
    ContentBlock,
    MessageEntry,
    NormalizedBlock,
    SessionEntry,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResult,
    ToolResultBlock,
    ToolResultEntry,
)

_IMAGE_CHARS = IMAGE_TOKENS * CHARS_PER_TOKEN
_NONE_OWED = (0).__eq__
"""owed → safe, mapped in C over the whole window."""


class Walk:
    """What one pass over a window found: its Scan, and its blocks by cut."""

    def __init__(
        self,
        entries: Sequence[SessionEntry],
        indices: Sequence[int],
        scan: Scan,
        blocks: list[NormalizedBlock],
        offsets: list[int],
        indexer: Indexer,
        regular: bool,
    ) -> None:
        self.entries = entries
        self.indices = indices
        self.scan = scan
        self.regular = regular
        self._blocks = blocks
        self._offsets = offsets
        self._indexer = indexer

    def blocks(self, keep_from: int) -> tuple[list[NormalizedBlock], BlockIndex]:
        """The blocks of the first `keep_from` entries (a safe cut, or all) and their index."""
        if not self.regular:
            blocks = normalize(self.entries[:keep_from], indices=self.indices[:keep_from])
            return blocks, BlockIndex(blocks)
        return self._indexer.prefix(self._blocks, self._offsets[keep_from])


def walk_window(
    entries: Sequence[SessionEntry], positions: Sequence[int], indices: Sequence[int]
) -> Walk:
    """One pass over a window's context entries (`positions`: where they sit in the branch,
    `indices`: their stable indices)."""
    walker = _Walker()
    offsets, blocks, tokens = walker.offsets, walker.blocks, walker.tokens
    result_entry, message = walker.result_entry, walker.message
    for i, entry in enumerate(entries):
        # the exact class first: a failed isinstance on a pydantic class costs ~6x
        if type(entry) is MessageEntry:
            message(entry, i, indices[i])
        elif type(entry) is ToolResultEntry:
            result_entry(entry, indices[i])
        elif isinstance(entry, MessageEntry):  # a subclass
            message(entry, i, indices[i])
        elif isinstance(entry, ToolResultEntry):
            result_entry(entry, indices[i])
        else:
            walker.other()
        offsets.append(len(blocks))
    blocks = walker.finish()
    if walker.regular and not walker.pending:
        scan = Scan(tokens, *walker.boundaries())
    else:  # a call never answered (a crash), or irregular: the plain definition's scan
        scan = scan_rows(positions, [scan_entry(entry) for entry in entries])
    return Walk(entries, indices, scan, blocks, offsets, walker.indexer, walker.regular)


class _Walker:
    """The pass itself. Each attribute of an entry is read once: a pydantic model's attribute
    costs several times a plain object's, and the walk reads about ten per entry."""

    def __init__(self) -> None:
        self.tokens: list[int] = []
        self.owed: list[int] = []
        """Per entry: how many calls made before it are answered at or after it (a message
        with no tool result in it; -1 for any other entry). 0: a tail may start there."""
        self.pending = 0
        """Calls made so far and not answered yet."""
        self.turns: list[int] = []
        """Window positions of the messages that start a user turn."""
        self.blocks: list[NormalizedBlock | None] = []
        """None: a bash call's slot, filled when its result arrives (or by `finish`)."""
        self.offsets = [0]
        self.indexer = Indexer()
        found = self.indexer.found
        self.kinds = found.kinds
        self.call_at, self.result_at = found.kinds["tool_call"], found.kinds["tool_result"]
        self.calls, self.results, self.named = found.calls, found.results, found.names
        """The index's parts, filled here in place of `Indexer.add` per block: a call or a
        result seen twice makes the window irregular, whose blocks are made again anyway."""
        self.answered: set[str] = set()
        """Ids of the calls whose result was seen."""
        self.names: dict[str, str] = {}
        """Call id → tool name, for the calls seen so far."""
        self.skipped: set[str] = set()
        self.waiting: dict[str, tuple[int, int, str]] = {}
        """Bash call id → (its block's slot, its entry index, the command) until answered."""
        self.regular = True

    def message(self, entry: MessageEntry, i: int, index: int) -> None:
        owed = self.pending  # before this message's own calls
        message = entry.details.message
        role = message.role
        content = message.content
        first = content[0] if len(content) == 1 else None  # a subclass goes to `_content`
        if type(first) is ToolCallBlock:  # one tool call, the usual assistant step
            call_id, name, args = first.id, first.name, first.input
            self._call(call_id, name, args, index)
            chars = len(name) + json_chars(args)
            has_text = has_result = False
        elif type(first) is TextBlock:  # a plain user or assistant turn
            text = first.text
            self._said(role, index, text.strip())
            chars, has_text, has_result = len(text), True, False
        else:
            chars, has_text, has_result = self._content(content, role, index)
        self.tokens.append(-(-chars // CHARS_PER_TOKEN) + ENTRY_OVERHEAD_TOKENS)
        self.owed.append(-1 if has_result else owed)
        if has_text and role == "user":
            self.turns.append(i)

    def other(self) -> None:
        """An entry that is neither a message nor a tool result (not in a live window)."""
        self.tokens.append(0)
        self.owed.append(-1)

    def _content(
        self, content: Sequence[ContentBlock], role: str, index: int
    ) -> tuple[int, bool, bool]:
        """(characters, any text, any tool result) of a message's blocks."""
        chars = 0
        texts: list[str] = []
        has_text = has_result = False
        for block in content:
            if isinstance(block, TextBlock):
                has_text = True
                chars += len(block.text)
                texts.append(block.text)
                continue
            if texts:
                self._said(role, index, "\n".join(texts).strip())
                texts.clear()
            if isinstance(block, ToolCallBlock):
                call_id, name, args = block.id, block.name, block.input
                chars += len(name) + json_chars(args)
                self._call(call_id, name, args, index)
            elif isinstance(block, ToolResultBlock):
                has_result = True
                chars += self._inline_result(block, index)
            elif isinstance(block, ThinkingBlock):
                thinking = block.thinking
                chars += len(thinking)
                if thinking.strip():
                    self._add("thinking", thinking_block(index, thinking))
            else:
                chars += _IMAGE_CHARS
        if texts:
            self._said(role, index, "\n".join(texts).strip())
        return chars, has_text, has_result

    def _add(self, kind: str, block: NormalizedBlock | None) -> None:
        self.kinds[kind].append(len(self.blocks))
        self.blocks.append(block)

    def _said(self, role: str, index: int, text: str) -> None:
        if text:
            self.kinds[role].append(len(self.blocks))
            self.blocks.append(said_block(role, index, text))

    def _call(self, call_id: str, name: str, args: dict[str, Any], index: int) -> None:
        if call_id in self.names:
            self.regular = False  # the same id made twice
        self.names[call_id] = name
        self.pending += 1
        at = len(self.blocks)
        if name in BASH_TOOLS:
            if call_id in self.answered:
                self.regular = False  # answered before it was made
            self.waiting[call_id] = (at, index, bash_command(args))
            self._add("bash", None)  # its slot, filled by the result
        elif name in SKIPPED_TOOLS:
            self.skipped.add(call_id)
        else:
            made = call_block(index, call_id, name, args)
            self.call_at.append(at)
            named = self.named.get(name)
            if named is None:
                self.named[name] = [at]
            else:
                named.append(at)
            self.calls[call_id] = made
            self.blocks.append(made)

    def _inline_result(self, block: ToolResultBlock, index: int) -> int:
        content = block.content
        text = result_text(content)
        self._result(block.tool_call_id, "", index, text, block)
        return result_chars(content)

    def result_entry(self, entry: ToolResultEntry, index: int) -> None:
        d = entry.details
        result = d.result
        content = result.content
        first = content[0] if len(content) == 1 else None
        if isinstance(first, TextBlock):
            text = first.text
            chars = len(text)
        else:
            text, chars = result_text(content), result_chars(content)
        self.tokens.append(-(-chars // CHARS_PER_TOKEN) + ENTRY_OVERHEAD_TOKENS)
        self.owed.append(-1)
        self._result(d.tool_call_id, d.name, index, text, result)

    def _result(
        self, call_id: str, name: str, index: int, text: str, result: ToolResult | ToolResultBlock
    ) -> None:
        """`result`: the entry's or the message's, read only for what its call's block needs
        (a bash call's details, another call's error flag)."""
        answered = self.answered
        if call_id in answered:
            self.regular = False  # answered twice
        elif call_id in self.names:
            self.pending -= 1
        answered.add(call_id)
        waiting = self.waiting.pop(call_id, None)
        if waiting is not None:
            details = result.details if isinstance(result, ToolResult) else {}
            self.blocks[waiting[0]] = bash_output_block(call_id, waiting[2], index, text, details)
        elif call_id not in self.skipped and name not in SKIPPED_TOOLS:
            shown = self.names.get(call_id, name or "tool")
            made = result_block(index, call_id, shown, text, result.is_error)
            self.result_at.append(len(self.blocks))
            self.results[call_id] = made
            self.blocks.append(made)

    def finish(self) -> list[NormalizedBlock]:
        """The blocks, with a bash call never answered as a block without output at the
        call's index."""
        for call_id, (slot, index, command) in self.waiting.items():
            self.blocks[slot] = bash_block(call_id, command, index, None)
        self.waiting.clear()
        return cast(list[NormalizedBlock], self.blocks)

    def boundaries(self) -> tuple[list[bool], list[bool]]:
        """Safe and user-turn flags per entry: a tail may start at a message that carries no
        tool results, when no call before it has its result after it. Counted as the walk
        went (calls not answered yet), which is exact when every call made in the window is
        answered once, after it (`regular`, nothing pending): else the walk scans again."""
        safe = list(map(_NONE_OWED, self.owed))
        user = [False] * len(safe)
        for i in self.turns:
            user[i] = True
        return safe, user
