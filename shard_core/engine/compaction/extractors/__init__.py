"""The built-in extractors, in summary order: stable sections first, volatile last.

Each is `(blocks, ctx) -> lines` (the Extractor contract) plus a `merge` policy name that tells
format.py how its section combines with the previous summary's.
"""

from __future__ import annotations

from shard_core.contracts.compactor import Extractor
from shard_core.engine.compaction.extractors.catalog import TypeCatalog
from shard_core.engine.compaction.extractors.files import FilesAndChanges
from shard_core.engine.compaction.extractors.intent import SessionGoal, UserPreferences
from shard_core.engine.compaction.extractors.outstanding import OutstandingContext, classify
from shard_core.engine.compaction.extractors.progress import Progress
from shard_core.engine.compaction.extractors.turns import BriefTranscript, EarlierTurns
from shard_core.engine.compaction.extractors.vcs import Commits

DEFAULT_EXTRACTORS: tuple[Extractor, ...] = (
    SessionGoal(),
    UserPreferences(),
    FilesAndChanges(),
    Commits(),
    TypeCatalog(),
    OutstandingContext(),
    Progress(),
    EarlierTurns(),
    BriefTranscript(),
)

__all__ = [
    "DEFAULT_EXTRACTORS",
    "BriefTranscript",
    "Commits",
    "EarlierTurns",
    "FilesAndChanges",
    "OutstandingContext",
    "Progress",
    "SessionGoal",
    "TypeCatalog",
    "UserPreferences",
    "classify",
]
