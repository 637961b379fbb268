"""Deterministic compaction: `normalize → build_sections → format_summary`, and the Compactor.

Public API:
- `normalize(entries, indices=None)` → NormalizedBlocks (tool calls paired with results)
- `build_sections(blocks, ctx, extractors=None)` → Sections (one per extractor)
- `format_summary(sections, previous=None, max_chars=None)` → the summary text
- `DeterministicCompactor(...)` — the Compactor contract; `live_context(branch)` — the latest
  summary and the entries the model still sees verbatim
"""

from shard_core.engine.compaction.compactor import (
    DeterministicCompactor,
    Numbering,
    branch_positions,
    latest_plan,
)
from shard_core.engine.compaction.context import BlockIndex, SectionContext, ToolIndex
from shard_core.engine.compaction.cut import live_context, live_window
from shard_core.engine.compaction.extractors import DEFAULT_EXTRACTORS
from shard_core.engine.compaction.format import PREAMBLE, format_summary, parse_summary
from shard_core.engine.compaction.normalize import normalize
from shard_core.engine.compaction.redact import redact
from shard_core.engine.compaction.sections import Section, build_sections
from shard_core.engine.compaction.tokens import estimate_entries, estimate_entry, estimate_text

__all__ = [
    "DEFAULT_EXTRACTORS",
    "PREAMBLE",
    "BlockIndex",
    "DeterministicCompactor",
    "Numbering",
    "Section",
    "SectionContext",
    "ToolIndex",
    "branch_positions",
    "build_sections",
    "estimate_entries",
    "estimate_entry",
    "estimate_text",
    "format_summary",
    "latest_plan",
    "live_context",
    "live_window",
    "normalize",
    "parse_summary",
    "redact",
]
