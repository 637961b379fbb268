"""What the built-in extractors share: one block index (tool pairing, kinds; the user and bash
blocks and their joined texts, listed once; results derived once), the latest plan checkpoint
and the per-block facts memo."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar, cast

from shard_core.contracts.compactor import ExtractorContext
from shard_core.engine.compaction.gates import Haystack
from shard_core.types import (
    BashBlock,
    NormalizedBlock,
    PlanCheckpoint,
    ToolCallNBlock,
    ToolResultNBlock,
    UserBlock,
)

PATH_KEYS = ("path", "file_path", "filePath", "file")
B = TypeVar("B")
D = TypeVar("D")
T = TypeVar("T")


class Facts:
    """Memo of pure per-block helpers, `fn(block, dep) -> value`, kept by the compactor across
    compactions: a block (cached with its entry, see cache.py) is worked on once, as it
    arrives, and a boundary only looks its facts up. A hit needs the very same block and an
    equal `dep` (what else the value depends on, e.g. the result paired with a call), so a
    value is always what `fn` would return now."""

    remembers = True
    """A compactor's memo: facts `observe` worked out are there to look up."""

    def __init__(self) -> None:
        self._memo: dict[Callable[..., Any], dict[int, tuple[object, object, object]]] = {}
        """Per helper, by block id (one dict per helper: no key tuple to build and hash)."""

    def of(self, fn: Callable[[B, D], T], block: B, dep: D) -> T:
        memo = self._memo.get(fn)
        if memo is None:
            memo = self._memo[fn] = {}
        hit = memo.get(id(block))
        if hit is not None and hit[0] is block and (hit[1] is dep or hit[1] == dep):
            value: T = hit[2]  # pyright: ignore[reportAssignmentType]  (no `cast`: a call per hit)
            return value
        value = fn(block, dep)
        memo[id(block)] = (block, dep, value)
        return value

    def keep_only(self, blocks: Collection[int]) -> None:
        """Forget the facts of every block whose id is not in `blocks`."""
        self._memo = {
            fn: {k: v for k, v in memo.items() if k in blocks} for fn, memo in self._memo.items()
        }

    def __len__(self) -> int:
        return sum(map(len, self._memo.values()))


class _NoFacts(Facts):
    """No memo: an extractor used without a compactor's cache computes everything."""

    remembers = False

    def of(self, fn: Callable[[B, D], T], block: B, dep: D) -> T:
        return fn(block, dep)


NO_FACTS: Facts = _NoFacts()


KINDS = ("user", "assistant", "tool_call", "tool_result", "bash", "thinking")


class Indexed(NamedTuple):
    """Where a list of blocks has what: positions by kind and tool calls' positions by tool
    name; calls and results by call id (the last one, when an id repeats)."""

    kinds: dict[str, list[int]]
    names: dict[str, list[int]]
    calls: dict[str, ToolCallNBlock]
    results: dict[str, ToolResultNBlock]


def index_blocks(blocks: Sequence[NormalizedBlock]) -> Indexed:
    indexer = Indexer()
    for i, block in enumerate(blocks):
        indexer.add(block, i)
    return indexer.found


class Indexer:
    """An Indexed kept as blocks are appended (walk.py, span.py), and its cut to a prefix."""

    def __init__(self) -> None:
        self.found = Indexed({kind: [] for kind in KINDS}, {}, {}, {})
        self.unique = True
        """No call id among the calls, nor among the results, twice: a prefix's dicts are the
        whole's without the ids of the blocks after it."""

    def add(self, block: NormalizedBlock, at: int) -> None:
        if block.kind == "tool_call":
            self._call(block, at)
        elif block.kind == "tool_result":
            self._result(block, at)
        else:
            self.found.kinds[block.kind].append(at)

    def _call(self, block: ToolCallNBlock, at: int) -> None:
        found = self.found
        found.kinds["tool_call"].append(at)
        named = found.names.get(block.name)
        if named is None:
            named = found.names[block.name] = []
        named.append(at)
        if block.id in found.calls:
            self.unique = False
        found.calls[block.id] = block

    def _result(self, block: ToolResultNBlock, at: int) -> None:
        found = self.found
        found.kinds["tool_result"].append(at)
        if block.id in found.results:
            self.unique = False
        found.results[block.id] = block

    def prefix(
        self, blocks: list[NormalizedBlock], end: int
    ) -> tuple[list[NormalizedBlock], BlockIndex]:
        """The first `end` of the indexed `blocks` and their index, in new containers (the
        indexer may go on growing)."""
        kept = blocks[:end]
        if not self.unique:
            return kept, BlockIndex(kept)
        found = self.found
        calls, results = dict(found.calls), dict(found.results)
        for i in found.kinds["tool_call"][bisect_left(found.kinds["tool_call"], end) :]:
            del calls[cast(ToolCallNBlock, blocks[i]).id]
        for i in found.kinds["tool_result"][bisect_left(found.kinds["tool_result"], end) :]:
            del results[cast(ToolResultNBlock, blocks[i]).id]
        kinds = {k: v[: bisect_left(v, end)] for k, v in found.kinds.items()}
        names = {k: v[: bisect_left(v, end)] for k, v in found.names.items()}
        return kept, BlockIndex(kept, Indexed(kinds, names, calls, results))


class BlockIndex:
    """Built once per compaction, read by every extractor: call id → its call and result
    blocks, and where each kind of block sits, so an extractor that wants the user turns or the
    edits does not walk every block (walk.py indexes the blocks while it makes them)."""

    def __init__(self, blocks: Sequence[NormalizedBlock], found: Indexed | None = None) -> None:
        self.blocks = blocks
        self.kinds, self.names, self.calls, self.results = found or index_blocks(blocks)
        self._users: list[UserBlock] | None = None
        self._bash: list[BashBlock] | None = None
        self._user_texts: Haystack | None = None
        self._commands: Haystack | None = None
        self._derived: dict[tuple[Callable[..., Any], int], tuple[object, object]] = {}

    def derived(self, fn: Callable[[BlockIndex, D], T], dep: D) -> T:
        """`fn(self, dep)`, worked out once per index and `dep` (the very object): what several
        extractors derive from the same blocks (the tail's findings: Outstanding Context and
        Progress)."""
        key = (fn, id(dep))
        hit = self._derived.get(key)
        if hit is None or hit[0] is not dep:
            hit = self._derived[key] = (dep, fn(self, dep))
        return cast(T, hit[1])

    def user_texts(self) -> Haystack:
        """The user turns' texts, lowered and joined once for the gates of every extractor
        that reads them (goal, preferences)."""
        if self._user_texts is None:
            self._user_texts = Haystack([b.text for b in self.users()])
        return self._user_texts

    def commands(self) -> Haystack:
        """The bash blocks' commands as they are, joined once (files, commits)."""
        if self._commands is None:
            self._commands = Haystack([b.command for b in self.bash()], lower=False)
        return self._commands

    def of_kind(self, *kinds: str) -> list[NormalizedBlock]:
        """The blocks of these kinds, in order."""
        blocks = self.blocks
        if len(kinds) == 1:
            return [blocks[i] for i in self.kinds[kinds[0]]]
        return [blocks[i] for i in sorted(i for k in kinds for i in self.kinds[k])]

    def at(self, kind: str) -> list[tuple[int, NormalizedBlock]]:
        """(position, block) of the blocks of one kind, in order."""
        blocks = self.blocks
        return [(i, blocks[i]) for i in self.kinds[kind]]

    def calls_named(self, names: Collection[str]) -> list[tuple[int, ToolCallNBlock]]:
        """(position, block) of the calls of these tools, in order."""
        calls = cast(Sequence[ToolCallNBlock], self.blocks)  # once: `cast` is a call
        at = sorted(i for name in names for i in self.names.get(name, ()))
        return [(i, calls[i]) for i in at]

    def users(self) -> Sequence[UserBlock]:
        """The user blocks in order: one list for every extractor that asks (a list of a
        long session's blocks costs a cache miss per block, for its reference count)."""
        if self._users is None:
            self._users = cast(list[UserBlock], self.of_kind("user"))
        return self._users

    def bash(self) -> Sequence[BashBlock]:
        """The bash blocks in order, one list as for `users`."""
        if self._bash is None:
            self._bash = cast(list[BashBlock], self.of_kind("bash"))
        return self._bash

    def tool_results(self) -> list[ToolResultNBlock]:
        return cast(list[ToolResultNBlock], self.of_kind("tool_result"))

    def newest(self, kind: str) -> Iterator[NormalizedBlock]:
        """The blocks of one kind, newest first, made as they are read: a caller that wants
        the last few does not pay for the rest."""
        blocks = self.blocks
        return (blocks[i] for i in reversed(self.kinds[kind]))

    def turn_starts(self) -> list[int]:
        """Where each turn starts: at each user block, and at 0 for blocks before the first."""
        users = self.kinds["user"]
        if self.blocks and (not users or users[0] != 0):
            return [0, *users]
        return users

    def call_of(self, block: ToolResultNBlock) -> ToolCallNBlock | None:
        return self.calls.get(block.id)

    def result_of(self, block: ToolCallNBlock) -> ToolResultNBlock | None:
        return self.results.get(block.id)

    def path_of(self, block: ToolCallNBlock | ToolResultNBlock) -> str | None:
        call = block if block.kind == "tool_call" else self.calls.get(block.id)
        return call_path(call) if call is not None else None


ToolIndex = BlockIndex
"""The name extractors written against the first release know."""


def call_path(call: ToolCallNBlock) -> str | None:
    for key in PATH_KEYS:
        value = call.args.get(key)
        if isinstance(value, str) and value:
            return value.removeprefix("./")
    return None


@dataclass(frozen=True)
class SectionContext(ExtractorContext):
    """ExtractorContext plus what the built-in extractors share: the tool index and the plan."""

    tools: BlockIndex | None = None
    plan: PlanCheckpoint | None = None
    facts: Facts = NO_FACTS


def tool_index(blocks: Sequence[NormalizedBlock], ctx: ExtractorContext) -> BlockIndex:
    """The shared index when it indexes these very blocks, else a fresh one (an extractor used
    alone)."""
    if isinstance(ctx, SectionContext) and ctx.tools is not None and ctx.tools.blocks is blocks:
        return ctx.tools
    return BlockIndex(blocks)


def plan_of(ctx: ExtractorContext) -> PlanCheckpoint | None:
    return ctx.plan if isinstance(ctx, SectionContext) else None


def facts_of(ctx: ExtractorContext) -> Facts:
    return ctx.facts if isinstance(ctx, SectionContext) else NO_FACTS
