"""Tracker: before a tool that changes files runs, keep what it may change; after, log what it did.

`tool_call` (sent before the permission check and the tool) keeps the prior content: for a tool
given a path (`write`, `edit`, `notebook_edit`, …) that one file; for any other tool that is not
read-only (`bash`, `python_exec`, an MCP tool) the whole workspace, scanned. `tool_result`
compares and appends a `files` checkpoint right after the result's entry: which files changed
from which blob to which. A background task's changes are found the same way, by a scan at each
later tool call and turn boundary while it runs, and logged as origin `task`.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from shard_core.capabilities.checkpoints.workspace import ABSENT, FileState, Manifest, Workspace
from shard_core.engine.session_store import SessionStore
from shard_core.protocol.events import ToolCallEvent, ToolResultEvent
from shard_core.types import CheckpointEntry, FileChange, FilesCheckpoint

log = logging.getLogger("shard.checkpoints")

PATH_KEYS = ("path", "file_path", "notebook_path")


@dataclass
class _Pending:
    call: ToolCallEvent
    files: dict[str, FileState] | None = None
    """a path tool: the file(s) it names, as they were"""
    manifest: Manifest | None = None
    """any other changing tool: the whole workspace as it was"""


def change(rel: str, before: FileState, after: FileState) -> FileChange | None:
    """The change between two states of one file, None when there is none."""
    if before.exists == after.exists and (not before.exists or before.blob == after.blob):
        if before.blob is not None or not before.exists:
            return None
        if before.signature == after.signature:
            return None  # not kept either time (too big) and untouched
    notes = [n for n in (before.note, after.note) if n]
    return FileChange(
        path=rel,
        before=before.blob,
        after=after.blob,
        existed_before=before.exists,
        exists_after=after.exists,
        note="; ".join(dict.fromkeys(notes)) or None,
    )


def diff_manifests(before: Manifest, after: Manifest) -> list[FileChange]:
    changes: list[FileChange] = []
    for rel in sorted(before.files.keys() | after.files.keys()):
        found = change(rel, before.files.get(rel, ABSENT), after.files.get(rel, ABSENT))
        if found is not None:
            changes.append(found)
    return changes


class Tracker:
    def __init__(
        self,
        workspace: Workspace,
        store: Callable[[], SessionStore | None],
        *,
        tasks_running: Callable[[], bool] = lambda: False,
    ) -> None:
        self.workspace = workspace
        self._store = store
        self._tasks_running = tasks_running
        self._pending: dict[str, _Pending] = {}
        self._task_base: Manifest | None = None
        self.notices: list[str] = []
        """what a person should be told (a file too big to keep, a scan that stopped), once"""
        self._unsent: list[str] = []

    @property
    def root(self) -> Path:
        return self.workspace.root

    # ------------------------------------------------------------ events

    def tool_call(self, event: ToolCallEvent) -> None:
        if event.read_only:
            return
        self.catch_up_tasks(event.turn_id)
        paths = self._named_paths(event)
        if paths is not None:
            files = {rel: self.workspace.state(rel) for rel in paths}
            self._pending[event.call.id] = _Pending(event, files=files)
        else:
            self._pending[event.call.id] = _Pending(event, manifest=self._scan())

    def tool_result(self, event: ToolResultEvent) -> None:
        pending = self._pending.pop(event.tool_call_id, None)
        if pending is None:
            return
        incomplete = None
        if pending.files is not None:
            changes = [
                c
                for rel, before in pending.files.items()
                if (c := change(rel, before, self.workspace.state(rel))) is not None
            ]
        else:
            assert pending.manifest is not None
            after = self._scan()
            changes = diff_manifests(pending.manifest, after)
            incomplete = pending.manifest.gave_up or after.gave_up
            if event.result.details.get("background") is True:
                self._task_base = after  # a task started: its changes are watched from here
        if changes or incomplete:
            self._log(
                FilesCheckpoint(
                    origin="tool",
                    tool=event.name,
                    tool_call_id=event.tool_call_id,
                    turn_id=event.turn_id,
                    source_entry_id=event.entry_id,
                    changes=changes,
                    incomplete=incomplete,
                )
            )

    def catch_up_tasks(self, turn_id: str | None) -> None:
        """Log what background tasks changed since the last look (while any ran)."""
        if self._task_base is None:
            return
        now = self._scan()
        changes = diff_manifests(self._task_base, now)
        self._task_base = now if self._tasks_running() else None
        if changes:
            self._log(
                FilesCheckpoint(
                    origin="task", tool="task", turn_id=turn_id, changes=changes,
                    incomplete=now.gave_up,
                )
            )  # fmt: skip

    # ------------------------------------------------------------ helpers

    def _named_paths(self, event: ToolCallEvent) -> list[str] | None:
        """Workspace paths a path tool names; None for a tool without one (scan instead)."""
        given = event.call.input
        raw = [given[k] for k in PATH_KEYS if isinstance(given.get(k), str) and given[k]]
        if not raw or isinstance(given.get("command"), str):
            return None
        found: list[str] = []
        for text in raw:
            path = Path(os.path.realpath(self.root / os.path.expanduser(str(text))))
            try:
                found.append(path.relative_to(self.root).as_posix())
            except ValueError:
                continue  # outside the workspace: the tool refuses it, or a granted reach
        return found

    def take_notices(self) -> list[str]:
        """The notices since the last call (each said once)."""
        taken, self._unsent = self._unsent, []
        return taken

    def _notice(self, message: str) -> None:
        if message not in self.notices:
            self.notices.append(message)
            self._unsent.append(message)

    def _scan(self) -> Manifest:
        manifest = self.workspace.scan()
        if manifest.gave_up:
            self._notice(manifest.gave_up)
        return manifest

    def _log(self, checkpoint: FilesCheckpoint) -> None:
        for c in checkpoint.changes:
            if c.note:
                self._notice(f"{c.path} is {c.note}: a rewind cannot put this version back")
        store = self._store()
        if store is None:
            return
        try:
            store.append(CheckpointEntry, checkpoint)
        except Exception:  # the log is closed (shutdown): the tool's result stands
            log.warning("files checkpoint not logged", exc_info=True)
