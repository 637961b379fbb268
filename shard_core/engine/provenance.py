"""Provenance: the provider request behind an assistant message, rebuilt from the log alone.

Model-visible ⟺ logged: each assistant message records every parameter its request reached
the provider with (`RequestRecord`: model, max_tokens, temperature, the provider's wire
options, the hashes of the system prompt and tool set, and the newest entry of the branch the
messages came from). The system prompt and tools behind the hashes are in `ContextCheckpoint`s
somewhere on the lineage; the messages are the projection of that branch's live context (after
the latest compaction), exactly as the loop built them. `shard session request` prints the
result; tests compare it with what a provider server received, byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass

from shard_core.engine.compaction import live_context
from shard_core.engine.projection import Projector
from shard_core.engine.session_store import SessionStore
from shard_core.types import (
    AssistantMessage,
    CheckpointEntry,
    ContextCheckpoint,
    MessageEntry,
    ProviderRequest,
    RequestRecord,
    SessionEntry,
    SystemSection,
    ToolSpec,
)
from shard_core.types.errors import ConfigError

LEGACY_MAX_TOKENS = 8192
"""What every request carried before the log recorded max_tokens."""


@dataclass(frozen=True)
class RebuiltRequest:
    entry_id: str
    record: RequestRecord
    request: ProviderRequest
    notes: tuple[str, ...] = ()
    """what the log did not say and was assumed (older logs)"""


def request_entries(store: SessionStore) -> list[MessageEntry]:
    """This log's assistant messages that record their request, in log order."""
    return [
        e
        for e in store.entries
        if isinstance(e, MessageEntry)
        and isinstance(e.details.message, AssistantMessage)
        and e.details.request is not None
    ]


def rebuild_request(store: SessionStore, entry_id: str) -> RebuiltRequest:
    """The request that produced assistant message `entry_id` (the store's lineage attached)."""
    entry = store.get(entry_id)
    if entry is None:
        raise ConfigError(f"no entry {entry_id!r} in session {store.session_id}")
    if not isinstance(entry, MessageEntry) or not isinstance(
        entry.details.message, AssistantMessage
    ):
        raise ConfigError(f"entry {entry_id} is a {_kind(entry)}, not an assistant message")
    record = entry.details.request
    if record is None:
        raise ConfigError(f"entry {entry_id} records no request (a message not from a provider)")
    notes: list[str] = []
    leaf = record.leaf_id or entry.parent_id
    if record.leaf_id is None:
        notes.append("leaf_id not recorded: the branch ends at the message's parent")
    _, kept = live_context(store.branch(leaf) if leaf else [])
    system, tools = _context(store, record)
    max_tokens = record.max_tokens
    if max_tokens is None:
        notes.append(f"max_tokens not recorded: assumed {LEGACY_MAX_TOKENS}")
        max_tokens = LEGACY_MAX_TOKENS
    request = ProviderRequest(
        model=record.model,
        system=system,
        messages=Projector().messages(kept),
        tools=tools,
        max_tokens=max_tokens,
        temperature=record.temperature,
    )
    return RebuiltRequest(entry.id, record, request, tuple(notes))


def _context(
    store: SessionStore, record: RequestRecord
) -> tuple[list[SystemSection], list[ToolSpec]]:
    system: list[SystemSection] | None = None
    tools: list[ToolSpec] | None = None
    for entry in _lineage_entries(store):
        if not isinstance(entry, CheckpointEntry) or not isinstance(
            entry.details, ContextCheckpoint
        ):
            continue
        if system is None and entry.details.system_hash == record.system_hash:
            system = [SystemSection.model_validate(s) for s in entry.details.system]
        if tools is None and entry.details.tools_hash == record.tools_hash:
            tools = [ToolSpec.model_validate(t) for t in entry.details.tools]
    if system is None or tools is None:
        missing = "system prompt" if system is None else "tool set"
        raise ConfigError(
            f"the log has no context checkpoint for the {missing} of this request "
            f"(system {record.system_hash}, tools {record.tools_hash})"
        )
    return system, tools


def _lineage_entries(store: SessionStore) -> list[SessionEntry]:
    entries = list(store.entries)
    for parent in store.ancestors:
        entries.extend(parent.entries)
    return entries


def _kind(entry: SessionEntry) -> str:
    if isinstance(entry, MessageEntry):
        return f"{entry.details.message.role} message"
    return f"{entry.type} entry"
