"""build_sections: run the extractors over normalized blocks with one shared block index.

A Section is what one extractor produced: a name, the `## Title` it renders under, its lines
and how it merges with the previous summary's section of the same title (see merge.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
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


Over = Callable[[list[Section], frozenset[str]], bool]
"""Whether these sections, the previous summary's sections of these titles left out, are
already over the summary's budget."""


def build_sections(
    blocks: Sequence[NormalizedBlock],
    ctx: ExtractorContext,
    extractors: Sequence[Extractor] | None = None,
    *,
    last: Sequence[str] = (),
    over: Over | None = None,
) -> list[Section]:
    """One Section per extractor, in extractor order. An extractor that raises yields no lines
    (logged): a third-party bug must not stop compaction.

    `last` names sections the summary's fit drops whole before any other, least valuable last
    (format.DEFERRABLE). They are worked out after the others, in that order, each only while
    what is already made is not `over` the budget: once it is, fit would empty them anyway
    (they rank below everything made so far), so they are left empty — the same summary
    without their work (most of a small compaction's)."""
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
    deferred = [i for name in last for i, e in enumerate(extractors) if e.name == name]
    if over is None or not deferred:
        return [_section(e, blocks, shared) for e in extractors]
    made = {i: _section(e, blocks, shared) for i, e in enumerate(extractors) if i not in deferred}
    titles = frozenset(extractors[i].title for i in deferred)
    full = False
    for i in deferred:
        extractor = extractors[i]
        full = full or over([made[k] for k in sorted(made)], titles)
        if full:  # and so is every later one: more sections, more text
            made[i] = Section(extractor.name, extractor.title, (), _policy(extractor))
        else:
            made[i] = _section(extractor, blocks, shared)
            titles = titles - {extractor.title}
    return [made[k] for k in range(len(extractors))]


def _policy(extractor: Extractor) -> str:
    return str(getattr(extractor, "merge", "replace"))


def _section(
    extractor: Extractor, blocks: Sequence[NormalizedBlock], shared: SectionContext
) -> Section:
    try:
        lines = tuple(extractor(blocks, shared))
    except Exception:
        log_.exception("extractor %s failed; its section is left empty", extractor.name)
        lines = ()
    return Section(extractor.name, extractor.title, lines, _policy(extractor))
