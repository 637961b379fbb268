"""The built-in extractors, in summary order: stable sections first, volatile last.

Each is `(blocks, ctx) -> lines` (the Extractor contract) plus a `merge` policy name that tells
format.py how its section combines with the previous summary's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from shard_core.contracts.compactor import Extractor
from shard_core.engine.compaction.context import Facts, ToolIndex
from shard_core.engine.compaction.extractors import catalog, files, intent, turns, vcs
from shard_core.engine.compaction.extractors.catalog import TypeCatalog
from shard_core.engine.compaction.extractors.decisions import DecisionsAndQuestions
from shard_core.engine.compaction.extractors.files import FilesAndChanges
from shard_core.engine.compaction.extractors.intent import SessionGoal, UserPreferences
from shard_core.engine.compaction.extractors.outstanding import OutstandingContext, classify
from shard_core.engine.compaction.extractors.progress import Progress
from shard_core.engine.compaction.extractors.turns import BriefTranscript, EarlierTurns
from shard_core.engine.compaction.extractors.vcs import Commits
from shard_core.types import NormalizedBlock

DEFAULT_EXTRACTORS: tuple[Extractor, ...] = (
    SessionGoal(),
    UserPreferences(),
    DecisionsAndQuestions(),
    FilesAndChanges(),
    Commits(),
    TypeCatalog(),
    OutstandingContext(),
    Progress(),
    EarlierTurns(),
    BriefTranscript(),
)


def warm_facts(
    blocks: Sequence[NormalizedBlock], facts: Facts, redactor: Callable[[str], str]
) -> None:
    """Work out, for new blocks, the per-block facts the built-in extractors look at over the
    whole folded span (a boundary then only looks them up), and redact the Earlier Turns line
    of each whole turn among them (the line a boundary will make and redact again). Facts only
    the span's last turns need (transcript lines, outstanding findings) are left to the
    boundary: most blocks never get there."""
    tools = ToolIndex(blocks)
    changing = files.changing_tools()
    for block in blocks:
        if block.kind == "user":
            facts.of(intent.block_preferences, block, None)
            facts.of(intent.changes_scope, block, None)
            facts.of(turns.asked_line, block, None)
        elif block.kind == "bash":
            facts.of(turns.runs_tests, block, None)
            if "git" in block.command:
                facts.of(vcs.commits_of, block, None)
        elif block.kind == "tool_call" and block.name in changing:
            facts.of(files.file_change, block, tools.result_of(block))
        elif block.kind == "tool_result" and block.name in catalog.READ_TOOLS:
            path = tools.path_of(block)
            if path is not None and not block.is_error:
                facts.of(catalog.read_signatures, block, path)
    for turn in turns.split_turns(blocks):
        if turn[0].kind == "user":
            redactor(turns.turn_line(turn, tools, facts))


__all__ = [
    "DEFAULT_EXTRACTORS",
    "BriefTranscript",
    "Commits",
    "DecisionsAndQuestions",
    "EarlierTurns",
    "FilesAndChanges",
    "OutstandingContext",
    "Progress",
    "SessionGoal",
    "TypeCatalog",
    "UserPreferences",
    "classify",
    "warm_facts",
]
