"""Rewind: put the workspace's files (and/or the conversation) back to before an entry.

For each file any checkpoint after the target touched, the version to restore is the `before`
of the first change and the version the agent left is the `after` of the last. A file as the
agent left it is restored byte for byte; a file already as it was is left alone; a file a
person changed since is a conflict: the three versions are shown and nothing at all changes
unless the caller chose (`force`: overwrite with the earlier version; `keep`: keep the person's
version and restore the rest). A notebook a person changed is first restored cell by cell (by
cell id), which is no conflict when the person's cells are not the agent's. A file that is now
a symlink or outside the workspace, or whose earlier content is missing, corrupt or was never
kept, is named and skipped while the rest is restored.

The rewind writes its own `files` checkpoint (origin `rewind`), so rewinding to before it
undoes it. The conversation part moves the log's active branch: the checkpoint is appended as
a child of the target's parent, so the next request sees the conversation as it was; nothing
in the log is rewritten.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from shard_core.capabilities.checkpoints import notebook
from shard_core.capabilities.checkpoints.store import BlobError, BlobStore
from shard_core.capabilities.checkpoints.timeline import RewindError, files_checkpoints, resolve
from shard_core.capabilities.checkpoints.workspace import ABSENT, FileState, Workspace
from shard_core.engine.session_store import SessionStore
from shard_core.types import CheckpointEntry, FileChange, FilesCheckpoint, SessionEntry

Scope = Literal["code", "conversation", "both"]
Choice = Literal["refuse", "force", "keep"]
Action = Literal["restore", "unchanged", "conflict", "failed"]


@dataclass(frozen=True)
class Version:
    exists: bool
    blob: str | None


@dataclass
class FilePlan:
    path: str
    target: Version
    agent: Version
    current: FileState
    action: Action
    reason: str = ""
    data: bytes | None = None
    """the bytes to write (None with target absent: delete)"""


@dataclass
class RewindResult:
    to_entry_id: str
    scope: Scope
    plans: list[FilePlan] = field(default_factory=list[FilePlan])
    applied: bool = False
    entry_id: str | None = None
    """the rewind's own checkpoint (rewind to before it to undo)"""
    restored: list[str] = field(default_factory=list[str])
    kept: list[str] = field(default_factory=list[str])
    failed: list[str] = field(default_factory=list[str])
    leaf_id: str | None = None

    @property
    def conflicts(self) -> list[FilePlan]:
        return [p for p in self.plans if p.action == "conflict"]


def _replace(path: Path, data: bytes) -> None:
    """Write `data` as `path`'s content. A regular file with one link is rewritten in place (as
    `git checkout` does: creating a file costs this disk ten times an overwrite, and its mode
    and inode stay); a new file is created; a hard-linked one is replaced by a renamed temp
    file, so its other names keep their content."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISREG(st.st_mode) and st.st_nlink == 1:
        with open(path, "r+b") as handle:
            handle.write(data)
            handle.truncate()
        return
    if st is None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "xb") as handle:
            handle.write(data)
        return
    temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.rewind")
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(temp, stat.S_IMODE(st.st_mode))
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise


def _matches(state: FileState, version: Version) -> bool:
    if state.exists != version.exists:
        return False
    return not state.exists or (state.blob is not None and state.blob == version.blob)


class Rewinder:
    def __init__(
        self,
        store: SessionStore,
        workspace: Workspace,
        *,
        running: Callable[[], bool] = lambda: False,
    ) -> None:
        self.store = store
        self.workspace = workspace
        self.blobs: BlobStore = workspace.blobs
        self.running = running

    @property
    def root(self) -> Path:
        return self.workspace.root

    # ------------------------------------------------------------ planning

    def plan(self, target: str, scope: Scope = "both") -> RewindResult:
        branch = self.store.branch()
        index = resolve(self.store, target)
        result = RewindResult(branch[index].id, scope)
        if scope != "conversation":
            result.plans = self.plan_files(branch[index:])
        return result

    def plan_files(
        self, entries: list[SessionEntry], only: set[str] | None = None
    ) -> list[FilePlan]:
        first: dict[str, Version] = {}
        last: dict[str, Version] = {}
        notes: dict[str, str] = {}
        for _, checkpoint in files_checkpoints(entries):
            for c in checkpoint.changes:
                if only is not None and c.path not in only:
                    continue
                if c.path not in first:
                    first[c.path] = Version(c.existed_before, c.before)
                    if c.existed_before and c.before is None:
                        notes[c.path] = c.note or "it was not kept"
                last[c.path] = Version(c.exists_after, c.after)
        return [self._plan_one(rel, first[rel], last[rel], notes.get(rel)) for rel in first]

    def _plan_one(self, rel: str, target: Version, agent: Version, note: str | None) -> FilePlan:
        unsafe = self.unsafe(rel)
        if unsafe:
            return FilePlan(rel, target, agent, ABSENT, "failed", unsafe)
        current = self.workspace.state(rel)
        if _matches(current, target):
            return FilePlan(rel, target, agent, current, "unchanged", "already as it was")
        if note is not None:
            return FilePlan(
                rel, target, agent, current, "failed", f"its earlier content was not kept ({note})"
            )
        try:
            data = self.blobs.get(target.blob) if target.blob is not None else None
        except BlobError as exc:
            return FilePlan(rel, target, agent, current, "failed", str(exc))
        if _matches(current, agent):
            return FilePlan(rel, target, agent, current, "restore", data=data)
        if current.exists and current.blob is None:
            reason = f"it is {current.note or 'not readable'} now"
            return FilePlan(rel, target, agent, current, "failed", reason)
        merged = self._cell_merge(rel, data, agent, current)
        if merged is not None and merged.data is not None:
            kept = f"; kept your edits to {len(merged.kept)} cell(s)" if merged.kept else ""
            reason = f"restored cell by cell{kept}"
            return FilePlan(rel, target, agent, current, "restore", reason, merged.data)
        cells = f" (cells {', '.join(merged.conflicts)})" if merged and merged.conflicts else ""
        why = "changed since the agent last wrote it" + cells
        return FilePlan(rel, target, agent, current, "conflict", why, data)

    def _cell_merge(
        self, rel: str, target: bytes | None, agent: Version, current: FileState
    ) -> notebook.Merged | None:
        if not rel.endswith(".ipynb") or target is None or agent.blob is None:
            return None
        if current.blob is None:
            return None
        try:
            agent_data, current_data = self.blobs.get(agent.blob), self.blobs.get(current.blob)
        except BlobError:
            return None
        return notebook.merge(target, agent_data, current_data)

    def unsafe(self, rel: str) -> str | None:
        """Why `rel` must not be written now: outside the workspace, or behind a symlink."""
        path = self.root / rel
        if ".." in Path(rel).parts or Path(rel).is_absolute():
            return "outside the workspace"
        real = Path(os.path.realpath(path))
        if not real.is_relative_to(self.root):
            return "outside the workspace now (a folder on its way is a symlink)"
        if path.is_symlink():
            return "a symlink now; not followed"
        if real != path:
            return "behind a symlink now; not followed"
        return None

    # ------------------------------------------------------------ applying

    def rewind(self, target: str, scope: Scope = "both", choice: Choice = "refuse") -> RewindResult:
        """Plan and, unless a conflict waits for a choice, apply."""
        if self.running():
            raise RewindError("a turn is running: stop it (interrupt) before rewinding")
        result = self.plan(target, scope)
        parent = None
        if scope != "code":
            found = self.store.get(result.to_entry_id)
            assert found is not None
            parent = found.parent_id
            if parent is None:
                raise RewindError("cannot rewind past the session start")
        return self.apply(result, choice, parent=parent)

    def apply(
        self,
        result: RewindResult,
        choice: Choice = "refuse",
        *,
        parent: str | None = None,
        previous_leaf: str | None = None,
    ) -> RewindResult:
        """Write the plan; `parent` moves the conversation (the checkpoint's parent entry)."""
        if result.conflicts and choice == "refuse":
            return result  # nothing changed: the caller shows the three versions
        changes: list[FileChange] = []
        for plan in result.plans:
            if plan.action == "failed":
                result.failed.append(f"{plan.path}: {plan.reason}")
                continue
            if plan.action == "unchanged":
                continue
            if plan.action == "conflict" and choice == "keep":
                result.kept.append(plan.path)
                continue
            written = self._write(plan)
            if written is not None:
                result.failed.append(f"{plan.path}: {written}")
                continue
            now = self._written(plan)
            changes.append(
                FileChange(
                    path=plan.path,
                    before=plan.current.blob,
                    after=now.blob,
                    existed_before=plan.current.exists,
                    exists_after=now.exists,
                )
            )
            result.restored.append(plan.path)
        moved = parent is not None
        result.leaf_id = leaf = self.store.leaf_id
        if not changes and not moved:
            result.applied = True  # nothing to write, nothing to log
            return result
        checkpoint = FilesCheckpoint(
            origin="rewind",
            tool="rewind",
            changes=changes,
            rewound_to=result.to_entry_id,
            previous_leaf_id=(previous_leaf or leaf) if moved else None,
        )
        entry = self.store.append(CheckpointEntry, checkpoint, parent_id=parent)
        result.entry_id, result.applied, result.leaf_id = entry.id, True, entry.id
        return result

    def _write(self, plan: FilePlan) -> str | None:
        """Write the file's earlier content (`_replace`). Like `git checkout`, not atomic and no
        fsync per file: every version written is in the store already, so a crash mid-rewind
        loses nothing a second rewind (or `--force`) cannot put back."""
        path = self.root / plan.path
        try:
            if plan.target.exists:
                assert plan.data is not None
                _replace(path, plan.data)
            elif path.exists() or path.is_symlink():
                path.unlink()
        except OSError as exc:
            return f"could not be written: {exc.strerror or exc}"
        return None

    def _written(self, plan: FilePlan) -> FileState:
        if not plan.target.exists or plan.data is None:
            return self.workspace.wrote(plan.path, None)
        return self.workspace.wrote(plan.path, self.blobs.put(plan.data).blob)

    # ------------------------------------------------------------ undo

    def last_rewind(self) -> tuple[int, FilesCheckpoint]:
        branch = self.store.branch()
        for i in range(len(branch) - 1, -1, -1):
            entry = branch[i]
            details = entry.details if isinstance(entry, CheckpointEntry) else None
            if isinstance(details, FilesCheckpoint) and details.origin == "rewind":
                return i, details
        raise RewindError("nothing to undo: this branch has no rewind")

    def undo(self, choice: Choice = "refuse") -> RewindResult:
        """Undo the newest rewind on the branch: its files as they were before it, and the
        conversation back to the leaf it left (when it moved the conversation)."""
        if self.running():
            raise RewindError("a turn is running: stop it (interrupt) before undoing a rewind")
        index, checkpoint = self.last_rewind()
        branch = self.store.branch()
        moved = checkpoint.previous_leaf_id is not None
        result = RewindResult(branch[index].id, "both" if moved else "code")
        result.plans = self.plan_files(branch[index:])
        return self.apply(result, choice, parent=checkpoint.previous_leaf_id)
