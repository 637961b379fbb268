"""build_sections: run the extractors over normalized blocks with one shared block index.

A Section is what one extractor produced: a name, the `## Title` it renders under, its lines
and how it merges with the previous summary's section of the same title (see merge.py).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from shard_core.contracts.compactor import Extractor, ExtractorContext
from shard_core.engine.compaction.context import SectionContext, facts_of, plan_of, tool_index
from shard_core.engine.compaction.extractors import DEFAULT_EXTRACTORS
from shard_core.types import NormalizedBlock

log_ = logging.getLogger("shard.compaction")


@dataclass(frozen=True)
class Section:
    name: str
    title: str
    lines: tuple[str, ...]
    merge: str = "replace"
    """Merge policy name: sticky-goal, union, union-files, rolling-turns, rolling-transcript or
    replace (the default for extractors that do not say)."""


def build_sections(
    blocks: Sequence[NormalizedBlock],
    ctx: ExtractorContext,
    extractors: Sequence[Extractor] | None = None,
) -> list[Section]:
    """One Section per extractor, in extractor order. An extractor that raises yields no lines
    (logged): a third-party bug must not stop compaction."""
    if extractors is None:
        extractors = DEFAULT_EXTRACTORS
    shared = SectionContext(
        code_index=ctx.code_index,
        previous_summary=ctx.previous_summary,
        compaction_index=ctx.compaction_index,
        tools=tool_index(blocks, ctx),  # the caller's when it indexes these blocks
        plan=plan_of(ctx),
        facts=facts_of(ctx),
    )
    sections: list[Section] = []
    for extractor in extractors:
        try:
            lines = tuple(extractor(blocks, shared))
        except Exception:
            log_.exception("extractor %s failed; its section is left empty", extractor.name)
            lines = ()
        policy = getattr(extractor, "merge", "replace")
        sections.append(Section(extractor.name, extractor.title, lines, str(policy)))
    return sections
