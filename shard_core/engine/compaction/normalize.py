"""normalize: session entries → NormalizedBlocks; tool calls paired with results by one look-ahead.

Blocks keep the stable entry index of the entry they came from, so every line of a summary can
point back with a `recall` breadcrumb. A bash call becomes one BashBlock (command, output, exit
code) carrying the index of its result entry, which is what `recall{expand}` should open. The
recall tool's own traffic is dropped: it only repeats older entries.

The block constructors here are the one place that says what each block holds; walk.py (the
compactor's single pass) and cache.py (its per-entry cache) build blocks through them too.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import Any, NamedTuple

from shard_core.types import (
    AssistantBlock,
    BashBlock,
    MessageEntry,
    NormalizedBlock,
    ResultContent,
    SessionEntry,
    ThinkingNBlock,
    ToolCallBlock,
    ToolCallNBlock,
    ToolResultNBlock,
    UserBlock,
)

SKIPPED_TOOLS: frozenset[str] = frozenset({"recall"})
BASH_TOOLS: frozenset[str] = frozenset({"bash"})
NO_OUTPUT = "(no output)"
"""What the bash tool prints for a silent command; normalized to an empty output."""
_EXIT_LINE = re.compile(r"\n*exit code (-?\d+)[^\n]*\Z")
"""The bash tool's closing line; `exit_line` finds its match without searching every position."""
_EXIT_WORDS = "exit code "
_CODE = re.compile(r"-?\d+").match
"""The code after the words, matched where they end (not searched for)."""
_TAIL = 200

_new = object.__new__


# The constructors below make blocks without validation, from fields taken from entries that
# were validated already: `object.__new__` and the slots set one by one, a plain object's cost.
# Validating values that cannot be wrong was a third of the time normalize took.


def said_block(kind: str, index: int, text: str) -> UserBlock | AssistantBlock:
    if kind == "user":
        user = _new(UserBlock)
        user.entry_index, user.kind, user.text = index, "user", text
        return user
    block = _new(AssistantBlock)
    block.entry_index, block.kind, block.text = index, "assistant", text
    return block


def thinking_block(index: int, text: str) -> ThinkingNBlock:
    block = _new(ThinkingNBlock)
    block.entry_index, block.kind, block.text = index, "thinking", text
    return block


def call_block(index: int, call_id: str, name: str, args: dict[str, Any]) -> ToolCallNBlock:
    block = _new(ToolCallNBlock)
    block.entry_index, block.kind, block.id, block.name = index, "tool_call", call_id, name
    block.args = dict(args)
    return block


def result_block(
    index: int, call_id: str, name: str, text: str, is_error: bool
) -> ToolResultNBlock:
    block = _new(ToolResultNBlock)
    block.entry_index, block.kind, block.id, block.name = index, "tool_result", call_id, name
    block.text, block.is_error = text, is_error
    return block


class PairedResult(NamedTuple):
    at: int
    name: str
    text: str
    is_error: bool
    details: dict[str, Any]


def bash_block(call_id: str, command: str, index: int, found: PairedResult | None) -> BashBlock:
    """A bash call and its result in one block, at the result's entry index (the call's when
    the result never came)."""
    if found is None:
        return _bash(index, call_id, command, "", None)
    return bash_output_block(call_id, command, found.at, found.text, found.details)


def bash_output_block(
    call_id: str, command: str, at: int, text: str, details: dict[str, Any]
) -> BashBlock:
    """A bash call answered by the result at entry index `at`."""
    found = exit_line(text, len(text) - _TAIL)  # searched once, for the code and the strip
    code = details.get("exit_code")
    if not isinstance(code, int) or isinstance(code, bool):
        code = int(found[1]) if found else None
    output = text[: found[0]] if found is not None and code is not None else text
    return _bash(at, call_id, command, "" if _only_no_output(output) else output, code)


def _only_no_output(output: str) -> bool:
    """`output.strip() == NO_OUTPUT` without scanning or copying a long output: `lstrip`
    returns the string itself when it starts with no whitespace (most outputs)."""
    head = output.lstrip()
    return head.startswith(NO_OUTPUT) and not head[len(NO_OUTPUT) :].strip()


def _bash(index: int, call_id: str, command: str, output: str, code: int | None) -> BashBlock:
    block = _new(BashBlock)
    block.entry_index, block.kind, block.id, block.command = index, "bash", call_id, command
    block.output, block.exit_code = output, code
    return block


def bash_command(args: dict[str, Any]) -> str:
    return str(args.get("command", ""))


def result_text(content: Sequence[ResultContent]) -> str:
    if len(content) == 1 and content[0].type == "text":
        return content[0].text  # the usual shape: no generator, no join
    return "\n".join(b.text if b.type == "text" else "[image]" for b in content)


def exit_line(text: str, lo: int = 0) -> tuple[int, str] | None:
    r"""Where `_EXIT_LINE.search(text[lo:])` matches (plus `lo`), and the code it reads —
    found from the last line: only there can `exit code N` reach the end with no newline
    after it (the first such on that line is the match, with the newlines right before it).
    The search itself tries every position, each a failed attempt at `\n*exit code`; here
    the code is matched where the words end (`-?\d+`; the rest of the line has no newline by
    construction)."""
    lo = max(lo, 0)
    line = text.rfind("\n", lo) + 1 or lo
    at = text.find(_EXIT_WORDS, line)
    while at != -1:
        code = _CODE(text, at + len(_EXIT_WORDS))
        if code is not None:
            start = at
            while start > lo and text[start - 1] == "\n":
                start -= 1
            return start, code.group()
        at = text.find(_EXIT_WORDS, at + 1)
    return None


def _look_ahead(entries: Sequence[SessionEntry], indices: Sequence[int]) -> dict[str, PairedResult]:
    """Every tool result in the range by call id: the one index all pairing goes through."""
    found: dict[str, PairedResult] = {}
    for pos, entry in enumerate(entries):
        if entry.type == "tool_result":
            d = entry.details
            result = d.result
            text = result_text(result.content)
            found[d.tool_call_id] = PairedResult(
                indices[pos], d.name, text, result.is_error, result.details
            )
        elif entry.type == "message":
            for block in entry.details.message.content:
                if block.type == "tool_result":
                    text = result_text(block.content)
                    found[block.tool_call_id] = PairedResult(
                        indices[pos], "", text, block.is_error, {}
                    )
    return found


class _Builder:
    def __init__(self, results: dict[str, PairedResult], skip: Collection[str]) -> None:
        self.results = results
        self.skip = skip
        self.blocks: list[NormalizedBlock] = []
        self.names: dict[str, str] = {}
        self.folded: set[str] = set()

    def message(self, entry: MessageEntry, index: int) -> None:
        kind = entry.details.message.role
        texts: list[str] = []
        for block in entry.details.message.content:
            if block.type == "text":
                texts.append(block.text)
                continue
            if texts:
                self._flush(texts, index, kind)
            if block.type == "tool_call":
                self.call(block, index)
            elif block.type == "tool_result":
                self.result(block.tool_call_id, "", index)
            elif block.type == "thinking" and block.thinking.strip():
                self.blocks.append(thinking_block(index, block.thinking))
        if texts:
            self._flush(texts, index, kind)

    def _flush(self, texts: list[str], index: int, kind: str) -> None:
        text = (texts[0] if len(texts) == 1 else "\n".join(texts)).strip()
        texts.clear()
        if text:
            self.blocks.append(said_block(kind, index, text))

    def call(self, block: ToolCallBlock, index: int) -> None:
        name = block.name
        self.names[block.id] = name
        if name in self.skip:
            self.folded.add(block.id)
        elif name in BASH_TOOLS:
            self.folded.add(block.id)
            found = self.results.get(block.id)
            self.blocks.append(bash_block(block.id, bash_command(block.input), index, found))
        else:
            self.blocks.append(call_block(index, block.id, name, block.input))

    def result(self, call_id: str, name: str, index: int) -> None:
        found = self.results.get(call_id)
        if found is None or call_id in self.folded or name in self.skip:
            return
        shown = self.names.get(call_id, name or found.name or "tool")
        self.blocks.append(result_block(index, call_id, shown, found.text, found.is_error))


def normalize(
    entries: Sequence[SessionEntry],
    *,
    indices: Sequence[int] | None = None,
    skip_tools: Collection[str] = SKIPPED_TOOLS,
) -> list[NormalizedBlock]:
    """Flatten entries into blocks in log order. `indices[i]` is entry i's stable index
    (default: its position in `entries`). Pure: the same entries give equal blocks."""
    numbering = indices if indices is not None else range(len(entries))
    builder = _Builder(_look_ahead(entries, numbering), skip_tools)
    for pos, entry in enumerate(entries):
        if entry.type == "message":
            builder.message(entry, numbering[pos])
        elif entry.type == "tool_result":
            builder.result(entry.details.tool_call_id, entry.details.name, numbering[pos])
    return builder.blocks
