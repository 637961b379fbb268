"""The session's turns and files checkpoints on its current branch, and which entry a rewind
target names (a turn number, an entry id, a prefix of one) — with a clear message for each bad
target."""

from __future__ import annotations

from dataclasses import dataclass

from shard_core.engine.session_store import SessionStore
from shard_core.types import (
    CheckpointEntry,
    FilesCheckpoint,
    MessageEntry,
    SessionEntry,
    SessionHeaderEntry,
    TextBlock,
    UserMessage,
)


class RewindError(Exception):
    """A target or request the rewind cannot take; the message says why and what to do."""


@dataclass(frozen=True)
class Turn:
    number: int
    entry: MessageEntry
    index: int
    """position of the turn's prompt on the branch"""

    @property
    def prompt(self) -> str:
        message = self.entry.details.message
        text = " ".join(b.text for b in message.content if isinstance(b, TextBlock))
        return " ".join(text.split())


def is_turn_start(entry: SessionEntry) -> bool:
    if not isinstance(entry, MessageEntry) or not isinstance(entry.details.message, UserMessage):
        return False
    d = entry.details
    return d.turn_id is not None and d.steer_id is None and d.context is None


def turns(branch: list[SessionEntry]) -> list[Turn]:
    found: list[Turn] = []
    for i, entry in enumerate(branch):
        if is_turn_start(entry):
            assert isinstance(entry, MessageEntry)
            found.append(Turn(len(found) + 1, entry, i))
    return found


def files_checkpoints(
    branch: list[SessionEntry], start: int = 0, end: int | None = None
) -> list[tuple[CheckpointEntry, FilesCheckpoint]]:
    found: list[tuple[CheckpointEntry, FilesCheckpoint]] = []
    for entry in branch[start:end]:
        if isinstance(entry, CheckpointEntry) and isinstance(entry.details, FilesCheckpoint):
            found.append((entry, entry.details))
    return found


def turn_span(branch: list[SessionEntry], number: int) -> tuple[int, int]:
    """Branch positions [start, end) of turn `number` (1-based)."""
    every = turns(branch)
    if not every:
        raise RewindError("this session has no turns yet: nothing to rewind")
    if number < 1:
        raise RewindError(
            f"cannot rewind past the session start: turns are numbered 1 to {len(every)}"
        )
    if number > len(every):
        raise RewindError(f"unknown turn {number}: this session has turns 1 to {len(every)}")
    start = every[number - 1].index
    end = every[number].index if number < len(every) else len(branch)
    return start, end


def resolve(store: SessionStore, target: str) -> int:
    """The branch position a rewind goes back to before: a turn number (`3`, `turn 3`,
    `#3`) or an entry id (or a unique prefix of one, at least 6 characters)."""
    branch = store.branch()
    ids = [e.id for e in branch]
    matches = [i for i, eid in enumerate(ids) if eid == target]
    text = target.strip().removeprefix("turn").strip().removeprefix("#")
    if not matches and text.isdigit():  # an id may be all digits: the id is asked for first
        return turn_span(branch, int(text))[0]
    if not matches and len(target) >= 6:
        matches = [i for i, eid in enumerate(ids) if eid.startswith(target)]
    if len(matches) > 1:
        raise RewindError(f"entry {target!r} is ambiguous: {len(matches)} entries start with it")
    if not matches:
        if store.get(target) is not None:
            raise RewindError(
                f"entry {target} is not on the conversation's current branch (a rewind left "
                "it); `/rewind` lists the turns you can go back to"
            )
        raise RewindError(
            f"unknown entry {target!r} in session {store.session_id}; `/rewind` lists the "
            "turns, `shard session show` every entry"
        )
    index = matches[0]
    if isinstance(branch[index], SessionHeaderEntry) or index == 0:
        raise RewindError(
            "cannot rewind past the session start: that entry is the session's header"
        )
    return index
