"""What the built-in extractors share: one tool-pairing index and the latest plan checkpoint."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from shard_core.contracts.compactor import ExtractorContext
from shard_core.types import NormalizedBlock, PlanCheckpoint, ToolCallNBlock, ToolResultNBlock

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

    def __init__(self) -> None:
        self._memo: dict[tuple[Callable[..., Any], int], tuple[object, object, object]] = {}

    def of(self, fn: Callable[[B, D], T], block: B, dep: D) -> T:
        key = (fn, id(block))
        hit = self._memo.get(key)
        if hit is not None and hit[0] is block and (hit[1] is dep or hit[1] == dep):
            return cast(T, hit[2])
        value = fn(block, dep)
        self._memo[key] = (block, dep, value)
        return value

    def keep_only(self, blocks: Collection[int]) -> None:
        """Forget the facts of every block whose id is not in `blocks`."""
        self._memo = {k: v for k, v in self._memo.items() if k[1] in blocks}

    def __len__(self) -> int:
        return len(self._memo)


class _NoFacts(Facts):
    """No memo: an extractor used without a compactor's cache computes everything."""

    def of(self, fn: Callable[[B, D], T], block: B, dep: D) -> T:
        return fn(block, dep)


NO_FACTS: Facts = _NoFacts()


class ToolIndex:
    """Call id → its call and result blocks: built once per compaction, read by every extractor."""

    def __init__(self, blocks: Sequence[NormalizedBlock]) -> None:
        self.calls: dict[str, ToolCallNBlock] = {}
        self.results: dict[str, ToolResultNBlock] = {}
        for block in blocks:
            if block.kind == "tool_call":
                self.calls[block.id] = block
            elif block.kind == "tool_result":
                self.results[block.id] = block

    def call_of(self, block: ToolResultNBlock) -> ToolCallNBlock | None:
        return self.calls.get(block.id)

    def result_of(self, block: ToolCallNBlock) -> ToolResultNBlock | None:
        return self.results.get(block.id)

    def path_of(self, block: ToolCallNBlock | ToolResultNBlock) -> str | None:
        call = block if block.kind == "tool_call" else self.calls.get(block.id)
        return call_path(call) if call is not None else None


def call_path(call: ToolCallNBlock) -> str | None:
    for key in PATH_KEYS:
        value = call.args.get(key)
        if isinstance(value, str) and value:
            return value.removeprefix("./")
    return None


@dataclass(frozen=True)
class SectionContext(ExtractorContext):
    """ExtractorContext plus what the built-in extractors share: the tool index and the plan."""

    tools: ToolIndex | None = None
    plan: PlanCheckpoint | None = None
    facts: Facts = NO_FACTS


def tool_index(blocks: Sequence[NormalizedBlock], ctx: ExtractorContext) -> ToolIndex:
    """The shared index when build_sections made one, else a fresh one (extractor used alone)."""
    if isinstance(ctx, SectionContext) and ctx.tools is not None:
        return ctx.tools
    return ToolIndex(blocks)


def plan_of(ctx: ExtractorContext) -> PlanCheckpoint | None:
    return ctx.plan if isinstance(ctx, SectionContext) else None


def facts_of(ctx: ExtractorContext) -> Facts:
    return ctx.facts if isinstance(ctx, SectionContext) else NO_FACTS
