"""What the built-in extractors share: one tool-pairing index and the latest plan checkpoint."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shard_core.contracts.compactor import ExtractorContext
from shard_core.types import NormalizedBlock, PlanCheckpoint, ToolCallNBlock, ToolResultNBlock

PATH_KEYS = ("path", "file_path", "filePath", "file")


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


def tool_index(blocks: Sequence[NormalizedBlock], ctx: ExtractorContext) -> ToolIndex:
    """The shared index when build_sections made one, else a fresh one (extractor used alone)."""
    if isinstance(ctx, SectionContext) and ctx.tools is not None:
        return ctx.tools
    return ToolIndex(blocks)


def plan_of(ctx: ExtractorContext) -> PlanCheckpoint | None:
    return ctx.plan if isinstance(ctx, SectionContext) else None
