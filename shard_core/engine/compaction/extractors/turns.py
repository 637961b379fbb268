"""Earlier Turns (one line per user turn, with its outcome and a `recall` breadcrumb) and the
Brief Transcript of the most recent turns, long outputs cut head + tail."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from shard_core.contracts.compactor import ExtractorContext
from shard_core.engine.compaction.context import (
    NO_FACTS,
    BlockIndex,
    Facts,
    ToolIndex,
    call_path,
    facts_of,
    tool_index,
)
from shard_core.engine.compaction.excerpts import (
    clip,
    crumb,
    first_line,
    head_tail,
    squash,
    with_crumb,
)
from shard_core.engine.compaction.extractors.catalog import READ_TOOLS
from shard_core.engine.compaction.extractors.files import changing_tools, file_change
from shard_core.engine.compaction.extractors.outstanding import family, key_line, last_line
from shard_core.engine.plurals import counted
from shard_core.types import (
    AssistantBlock,
    BashBlock,
    NormalizedBlock,
    ToolCallNBlock,
    ToolResultNBlock,
    UserBlock,
)

MAX_TURNS = 40
CONTINUED = "(continued)"
TRANSCRIPT_CHARS = 6000
BIG_OUTPUT = 1500
SHORT_OUTPUT = 160


def split_turns(blocks: Sequence[NormalizedBlock]) -> list[list[NormalizedBlock]]:
    """Blocks grouped by user turn; blocks before the first user block form their own group."""
    turns: list[list[NormalizedBlock]] = []
    for block in blocks:
        if block.kind == "user" or not turns:
            turns.append([])
        turns[-1].append(block)
    return turns


def last_turns(
    tools: BlockIndex, count: int | None = None
) -> tuple[int, Iterator[list[NormalizedBlock]]]:
    """How many turns `split_turns` finds, and the last `count` of them (all: None), newest
    first — made from the index's user positions, so the older turns are never built."""
    starts = tools.turn_starts()
    blocks = tools.blocks
    ends = [*starts[1:], len(blocks)]
    shown = range(len(starts) - 1, -1 if count is None else max(-1, len(starts) - 1 - count), -1)
    return len(starts), (list(blocks[starts[i] : ends[i]]) for i in shown)


def _acts(
    turn: list[NormalizedBlock], tools: ToolIndex, facts: Facts
) -> tuple[int, list[str], BashBlock | None, AssistantBlock | None]:
    """In one walk over a turn: its tool calls, the files it changed, its last test run and
    its last answer."""
    calls = 0
    paths: list[str] = []
    tested: BashBlock | None = None
    said: AssistantBlock | None = None
    changing = changing_tools()
    for block in turn:
        if block.kind == "tool_call":
            calls += 1
            if block.name in changing:
                change = facts.of(file_change, block, tools.result_of(block))
                if change is not None:
                    paths.append(change[0])
        elif block.kind == "bash":
            calls += 1
            if facts.of(runs_tests, block, None):
                tested = block
        elif block.kind == "assistant":
            said = block
    return calls, list(dict.fromkeys(paths)), tested, said


def asked_line(block: UserBlock, _: None) -> str:
    return clip(block.text, 100)


def runs_tests(block: BashBlock, _: None) -> bool:
    return family(block.command) == "tests"


def _answer(block: AssistantBlock, _: None) -> str:
    return clip(block.text, 80)


def turn_line(turn: list[NormalizedBlock], tools: ToolIndex, facts: Facts = NO_FACTS) -> str:
    head = turn[0]
    asked = facts.of(asked_line, head, None) if isinstance(head, UserBlock) else CONTINUED
    calls, changed, tested, said = _acts(turn, tools, facts)
    parts: list[str] = [f"{calls} tool call{'s' if calls != 1 else ''}"] if calls else []
    if changed:
        more = f" +{len(changed) - 2}" if len(changed) > 2 else ""
        parts.append("changed " + ", ".join(changed[:2]) + more)
    if tested is not None:
        parts.append("tests passed" if tested.exit_code == 0 else "tests failed")
    if said is not None and not calls:
        parts.append(f"answered: {facts.of(_answer, said, None)}")
    outcome = f" → {'; '.join(parts)}" if parts else ""
    return with_crumb(f"{asked}{outcome}", [head.entry_index])


class EarlierTurns:
    name = "turns"
    title = "Earlier Turns"
    merge = "rolling-turns"

    def __call__(self, blocks: Sequence[NormalizedBlock], ctx: ExtractorContext) -> list[str]:
        tools = tool_index(blocks, ctx)
        count, newest_first = last_turns(tools, MAX_TURNS)
        facts = facts_of(ctx)
        lines = [turn_line(t, tools, facts) for t in newest_first]
        lines.reverse()
        if count > MAX_TURNS:
            lines.insert(0, f"(+{count - MAX_TURNS} earlier turns; search them with recall)")
        return lines


def _args(call: ToolCallNBlock) -> str:
    path = call_path(call)
    pattern = call.args.get("pattern") or call.args.get("query")
    if isinstance(pattern, str):
        return clip(f"{pattern!r}" + (f" in {path}" if path else ""), 120)
    if path is not None:
        return clip(path, 120)
    return clip(str(call.args), 120) if call.args else ""


def _outcome(text: str, index: int, failed: bool, *, bash: bool = False) -> str:
    """A failure's telling line and its last line; a short success whole; a long one by its
    last line (bash: where summaries are) or first line; very long output cut head + tail."""
    if failed:
        key, last = key_line(text), last_line(text)
        shown = key if key == last or not last else f"{key} … {last}"
        return (
            shown if len(text) <= BIG_OUTPUT else f"{shown} [{len(text):,} chars; {crumb([index])}]"
        )
    if len(text) > BIG_OUTPUT:
        return head_tail(text, 200, 160, crumb([index]))
    flat = squash(text)
    if len(flat) <= SHORT_OUTPUT:
        return flat
    lines = text.count("\n") + 1
    return (
        f"{last_line(text)} ({counted(lines, 'line')})"
        if bash
        else f"{first_line(text, 160)} ({counted(lines, 'line')})"
    )


def _said(label: str, block: UserBlock | AssistantBlock, head: int, tail: int) -> str:
    index = block.entry_index
    return f"[{label} #{index}] {head_tail(block.text, head, tail, crumb([index]))}"


def _bash_line(block: BashBlock) -> str:
    failed = block.exit_code != 0
    output = (
        _outcome(block.output, block.entry_index, failed, bash=True) if block.output.strip() else ""
    )
    status = "no exit code" if block.exit_code is None else f"exit {block.exit_code}"
    shown = f": {output}" if output else ""
    return f"  $ {clip(block.command, 160)} → {status}{shown} (#{block.entry_index})"


def _call_line(block: ToolCallNBlock, result: ToolResultNBlock | None) -> str:
    head = f"  → {block.name} {_args(block)}".rstrip()
    if result is None:
        return f"{head} (no result) (#{block.entry_index})"
    mark = " ✗ " if result.is_error else " → "
    if block.name in READ_TOOLS and not result.is_error:
        outcome = counted(result.text.count(chr(10)) + 1, "line")
    else:
        outcome = _outcome(result.text, result.entry_index, result.is_error)
    return f"{head}{mark}{outcome} (#{result.entry_index})"


Paired = ToolCallNBlock | ToolResultNBlock | None
"""What a block's transcript line depends on besides the block: a call's result, or whether a
result has its call in the span."""


def _paired(block: NormalizedBlock, tools: ToolIndex) -> Paired:
    if block.kind == "tool_call":
        return tools.result_of(block)
    if block.kind == "tool_result":
        return tools.call_of(block)
    return None


def render_block(block: NormalizedBlock, tools: ToolIndex) -> str | None:
    """One transcript line for a block; None for thinking and for results shown with calls."""
    return _rendered(block, _paired(block, tools))


def _rendered(block: NormalizedBlock, paired: Paired) -> str | None:
    if block.kind == "user":
        return _said("user", block, 400, 200)
    if block.kind == "assistant":
        return _said("assistant", block, 500, 300)
    if block.kind == "bash":
        return _bash_line(block)
    if block.kind == "tool_call":
        return _call_line(block, paired if isinstance(paired, ToolResultNBlock) else None)
    if block.kind == "tool_result" and paired is None:
        outcome = _outcome(block.text, block.entry_index, block.is_error)
        return f"  ← {block.name}: {outcome} (#{block.entry_index})"
    return None


def _fit(lines: list[str], budget: int) -> list[str]:
    """The turn's first line and as many of its last lines as fit in `budget` characters."""
    kept: list[str] = []
    used = len(lines[0])
    for line in reversed(lines[1:]):
        if used + len(line) > budget:
            break
        kept.append(line)
        used += len(line)
    omitted = len(lines) - 1 - len(kept)
    marker = [f"  … ({omitted} earlier lines of this turn omitted)"] if omitted else []
    return [lines[0], *marker, *reversed(kept)]


class BriefTranscript:
    name = "transcript"
    title = "Brief Transcript"
    merge = "rolling-transcript"

    def __call__(self, blocks: Sequence[NormalizedBlock], ctx: ExtractorContext) -> list[str]:
        tools = tool_index(blocks, ctx)
        facts = facts_of(ctx)
        chosen: list[list[str]] = []
        used = 0
        for turn in last_turns(tools)[1]:
            room = TRANSCRIPT_CHARS - used if chosen else None
            lines = _turn_lines(turn, tools, facts, room)
            if lines is None:
                break  # the turn does not fit after those chosen
            if not lines:
                continue
            size = sum(len(line) for line in lines)
            if used + size > TRANSCRIPT_CHARS:
                chosen.append(_fit(lines, TRANSCRIPT_CHARS))  # the newest turn, too big alone
                break
            chosen.append(lines)
            used += size
        return [line for lines in reversed(chosen) for line in lines]


def _turn_lines(
    turn: list[NormalizedBlock], tools: ToolIndex, facts: Facts, room: int | None
) -> list[str] | None:
    """A turn's transcript lines; None as soon as they pass `room` characters (when given):
    such a turn is left out whole, so the rest of it is not rendered."""
    lines: list[str] = []
    size = 0
    for block in turn:
        line = facts.of(_rendered, block, _paired(block, tools))
        if line is not None:
            lines.append(line)
            size += len(line)
            if room is not None and size > room:
                return None
    return lines
