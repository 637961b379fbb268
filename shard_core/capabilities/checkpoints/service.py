"""Checkpoints: one session's rewind, undo, review and revert, for every surface alike.

The agent's capability holds one (its `/rewind`, `/changes`, `/revert` and the kernel's
commands call it); `shard session rewind|diff|revert` builds one over a log that no agent has
open. Each entry point returns markdown and the result, and raises RewindError with the reason
for any bad request.
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from shard_core.capabilities.checkpoints.report import describe
from shard_core.capabilities.checkpoints.review import (
    descriptors,
    markdown,
    revert_cell,
    revert_hunk,
    review,
    wire,
)
from shard_core.capabilities.checkpoints.rewind import Choice, Rewinder, RewindResult, Scope
from shard_core.capabilities.checkpoints.store import DEFAULT_MAX_FILE_BYTES, BlobStore
from shard_core.capabilities.checkpoints.timeline import (
    RewindError,
    files_checkpoints,
    resolve,
    turn_span,
    turns,
)
from shard_core.capabilities.checkpoints.workspace import DEFAULT_MAX_SCAN_FILES, Workspace
from shard_core.engine.session_store import SessionStore
from shard_core.protocol.review import ChangesReview
from shard_core.types import CheckpointEntry, FilesCheckpoint, RenderDescriptor, SessionEntry

STORE_FOLDER = "checkpoints"


def blob_store(home: Path, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> BlobStore:
    return BlobStore(home / STORE_FOLDER, max_file_bytes=max_file_bytes)


@dataclass
class Outcome:
    text: str
    result: RewindResult | None = None
    render: list[RenderDescriptor] | None = None
    review: ChangesReview | None = None


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]  # a message, not an exit
        raise RewindError(f"{self.prog}: {message}")


def _rewind_parser() -> _Parser:
    p = _Parser(prog="/rewind", add_help=False)
    p.add_argument("target", nargs="?")
    scope = p.add_mutually_exclusive_group()
    scope.add_argument("--code", dest="scope", action="store_const", const="code")
    scope.add_argument("--conversation", dest="scope", action="store_const", const="conversation")
    scope.add_argument("--both", dest="scope", action="store_const", const="both")
    choice = p.add_mutually_exclusive_group()
    choice.add_argument("--force", dest="choice", action="store_const", const="force")
    choice.add_argument("--keep", dest="choice", action="store_const", const="keep")
    return p


def _revert_parser() -> _Parser:
    p = _Parser(prog="/revert", add_help=False)
    p.add_argument("path")
    p.add_argument("--turn", type=int)
    part = p.add_mutually_exclusive_group()
    part.add_argument("--hunk", type=int)
    part.add_argument("--cell")
    p.add_argument("--force", action="store_true")
    return p


class Checkpoints:
    def __init__(
        self,
        store: SessionStore,
        workspace: Workspace,
        *,
        running: Callable[[], bool] = lambda: False,
        announce: Callable[[RewindResult, str], None] | None = None,
    ) -> None:
        self.store = store
        self.workspace = workspace
        self.rewinder = Rewinder(store, workspace, running=running)
        self._announce = announce

    @classmethod
    def offline(cls, store: SessionStore, home: Path, cwd: Path | None = None) -> Checkpoints:
        """Over a log no agent has open; the workspace is the one its header names."""
        root = cwd or Path(store.header.details.cwd if store.header else ".")
        workspace = Workspace(root.resolve(), blob_store(home), max_files=DEFAULT_MAX_SCAN_FILES)
        return cls(store, workspace)

    # ------------------------------------------------------------ rewind

    def turns_table(self) -> str:
        branch = self.store.branch()
        every = turns(branch)
        if not every:
            return "No turns yet: nothing to rewind."
        rows = ["| turn | prompt | files changed | entry |", "|---|---|---|---|"]
        for t in every:
            start, end = turn_span(branch, t.number)
            paths = {c.path for _, cp in files_checkpoints(branch, start, end) for c in cp.changes}
            prompt = t.prompt if len(t.prompt) <= 60 else t.prompt[:59] + "…"
            prompt = prompt.replace("|", "\\|").replace("`", "'")
            rows.append(f"| {t.number} | {prompt} | {len(paths)} | `{t.entry.id}` |")
        rows += [
            "",
            "`/rewind TURN [--code|--conversation|--both]` goes back to before that turn "
            "(default: both); `/rewind undo` undoes the last rewind; `/changes TURN` shows "
            "what a turn changed.",
        ]
        return "\n".join(rows)

    def rewind(self, target: str, scope: Scope = "both", choice: Choice = "refuse") -> Outcome:
        result = self.rewinder.rewind(target, scope, choice)
        return self._finish(result, f"/rewind {target} --{scope}")

    def undo(self, choice: Choice = "refuse") -> Outcome:
        result = self.rewinder.undo(choice)
        return self._finish(result, "/rewind undo")

    def _finish(self, result: RewindResult, again: str) -> Outcome:
        self.workspace.blobs.flush()  # what it kept is on disk for the next process (the CLI)
        text = describe(result, self.workspace.blobs, again)
        if result.applied and self._announce is not None:
            self._announce(result, text)
        return Outcome(text, result)

    def command(self, args: list[str]) -> str:
        """`/rewind`'s words: a list, `undo`, or a target with a scope and a choice."""
        parsed = _rewind_parser().parse_args(args)
        choice: Choice = parsed.choice or "refuse"
        if parsed.target is None:
            return self.turns_table()
        if parsed.target == "undo":
            return self.undo(choice).text
        return self.rewind(parsed.target, parsed.scope or "both", choice).text

    # ------------------------------------------------------------ review

    def span(self, turn: int | None) -> tuple[str, list[SessionEntry]]:
        """The entries of turn `turn` without the rewinds made since (what the turn itself
        changed), or the whole branch."""
        branch = self.store.branch()
        if turn is None:
            return "**Changes in this session**", branch
        start, end = turn_span(branch, turn)
        entries = [e for e in branch[start:end] if not _is_rewind(e)]
        return f"**Changes in turn {turn}**", entries

    def turn_number(self, target: str) -> int:
        """The turn a target names: its number, or the entry id of its prompt (what a
        client's transcript knows a turn by)."""
        branch = self.store.branch()
        index = resolve(self.store, target)
        for t in turns(branch):
            if t.index == index:
                return t.number
        raise RewindError(f"entry {target} does not start a turn; name a turn or its prompt")

    def review(self, turn: int | None = None) -> Outcome:
        title, entries = self.span(turn)
        files = review(self.workspace.blobs, entries)
        target = None
        if turn is not None:
            target = turns(self.store.branch())[turn - 1].entry.id
        return Outcome(
            markdown(title, files),
            render=descriptors(title, files),
            review=wire(title, files, turn, target),
        )

    def changes_command(self, args: list[str]) -> str:
        if len(args) > 1 or (args and not args[0].lstrip("#").isdigit()):
            raise RewindError("usage: /changes [TURN]")
        return self.review(int(args[0].lstrip("#")) if args else None).text

    def revert(
        self,
        path: str,
        *,
        turn: int | None = None,
        hunk: int | None = None,
        cell: str | None = None,
        force: bool = False,
    ) -> Outcome:
        path = path.removeprefix("./")
        _, entries = self.span(turn)
        if not entries:
            raise RewindError("nothing to revert: the session has no entries")
        if hunk is not None:
            result = revert_hunk(self.rewinder, entries, path, hunk, force=force)
        elif cell is not None:
            result = revert_cell(self.rewinder, entries, path, cell, force=force)
        else:
            result = self._revert_file(entries[0].id, path, force)
        return self._finish(result, f"/revert {path}" + (f" --turn {turn}" if turn else ""))

    def _revert_file(self, first: str, path: str, force: bool) -> RewindResult:
        if self.rewinder.running():
            raise RewindError("a turn is running: stop it (interrupt) before reverting")
        branch = self.store.branch()
        entries = branch[[e.id for e in branch].index(first) :]
        plans = self.rewinder.plan_files(entries, only={path})
        if not plans:
            raise RewindError(f"{path} was not changed there; nothing to revert")
        result = RewindResult(entries[0].id, "code", plans)
        return self.rewinder.apply(result, "force" if force else "refuse")

    def revert_command(self, args: list[str]) -> str:
        p = _revert_parser().parse_args(args)
        return self.revert(p.path, turn=p.turn, hunk=p.hunk, cell=p.cell, force=p.force).text


def _is_rewind(entry: SessionEntry) -> bool:
    details = entry.details if isinstance(entry, CheckpointEntry) else None
    return isinstance(details, FilesCheckpoint) and details.origin == "rewind"


def split(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError as exc:
        raise RewindError(f"could not parse {text!r}: {exc}") from None
