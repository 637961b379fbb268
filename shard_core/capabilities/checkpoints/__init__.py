"""Checkpoints, rewind and review: every file a tool changes is kept before it changes (a
content-addressed store under SHARD_HOME), the session log says which blob became which, and
any turn can be rewound (files, conversation or both), reviewed and reverted in part."""

from shard_core.capabilities.checkpoints.capability import CheckpointsCapability
from shard_core.capabilities.checkpoints.service import Checkpoints, Outcome, blob_store
from shard_core.capabilities.checkpoints.timeline import RewindError

__all__ = ["Checkpoints", "CheckpointsCapability", "Outcome", "RewindError", "blob_store"]
