"""SessionStore: the append-only session JSONL — one writer, crash-safe loading, lineage, forks.

Each line is one SessionEntry. Appends are single `os.writev` calls on an O_APPEND descriptor, so
an entry is in the page cache the moment `append` returns (that is the "flush" before a provider
request or a tool dispatch); `sync()` fsyncs at turn end. On load, a torn last line (a crash
mid-append) is moved to a sidecar file and cut off; a damaged line in the middle is skipped and
reported. Nothing is ever rewritten otherwise. Images are kept as blob references beside the
log (session_blobs.py) and read back whole. With `secrets` set (the session sets its own),
every known secret value is replaced in an entry before it is written or kept: whatever path an
entry takes into the log — a prompt, a steer, a task's notice, a tool result — it holds none.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import logging
import os
import re
import socket
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from shard_core.engine.session_blobs import externalise, internalise
from shard_core.engine.state import private_dir
from shard_core.types import SessionEntry, SessionHeaderDetails, SessionHeaderEntry
from shard_core.types.base import DEFERRED
from shard_core.types.errors import SessionError, SessionLockedError, SessionNotFoundError
from shard_core.types.secrets import KnownSecrets

ENTRY_ADAPTER: TypeAdapter[SessionEntry] = TypeAdapter(SessionEntry, config=DEFERRED)
log_ = logging.getLogger("shard.session")
_NEWLINE = b"\n"
SESSION_ID = re.compile(r"s-[0-9a-f]{16}")
"""The form of every session id Shard makes (`new_id()` is 16 hex digits)."""
_PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")


def new_id() -> str:
    return os.urandom(8).hex()  # 16 hex digits, like uuid4().hex[:16] at a fifth of the cost


@dataclass
class LoadReport:
    """What loading found besides intact entries; empty lists mean a clean file."""

    skipped: list[str] = field(default_factory=list[str])
    torn: str | None = None

    @property
    def clean(self) -> bool:
        return not self.skipped and self.torn is None


class _WriterLock:
    """An exclusive flock on `<log>.lock`, naming its holder for the next one who tries."""

    def __init__(self, log: Path) -> None:
        self.path = log.with_name(log.name + ".lock")
        self._fd: int | None = None

    def acquire(self, log: Path) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "unknown holder"
            os.close(fd)
            raise SessionLockedError(str(log), holder) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()}".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, 0)
            os.close(self._fd)  # closing drops the flock
            self._fd = None


FREEZE_BYTES = 1 << 20
"""a log at least this big is parsed into the GC's permanent generation (see `_read_entries`)"""


def _read_entries(path: Path) -> tuple[list[SessionEntry], LoadReport, int]:
    """Parse every line; returns entries, the report and the byte length of the intact part.

    The cyclic GC waits until the parse is done: it would walk every entry parsed so far again
    and again (three quarters of the load time of a 28k-entry log), and entries make no cycles.
    A big log's entries then go to the permanent generation (`gc.freeze`): left in the young
    one, the first collections after the parse walked them all three times over, generation by
    generation (0.45 of the 1.7 CPU-s of `shard session compact --dry-run` on 28k entries). What
    was garbage before the parse is collected first, so no cycle of it is frozen for good.
    """
    data = path.read_bytes()
    enabled = gc.isenabled()
    freeze = enabled and len(data) >= FREEZE_BYTES
    if freeze:
        gc.collect()
    gc.disable()
    try:
        return _parse_lines(data, path.parent)
    finally:
        if freeze:
            gc.freeze()
        if enabled:
            gc.enable()


def _parse_lines(data: bytes, folder: Path) -> tuple[list[SessionEntry], LoadReport, int]:
    entries: list[SessionEntry] = []
    report = LoadReport()
    offset = 0
    lineno = 0
    while offset < len(data):
        end = data.find(b"\n", offset)
        lineno += 1
        if end == -1:  # no LF: the last append never finished
            report.torn = (
                f"bytes {offset}-{len(data) - 1} (line {lineno}, {len(data) - offset} bytes)"
            )
            return entries, report, offset
        line = data[offset:end]
        offset = end + 1
        if not line or line.isspace():  # blank (isspace: no copy of the line, unlike strip)
            continue
        try:
            entries.append(ENTRY_ADAPTER.validate_json(internalise(line, folder)))
        except ValidationError as exc:
            first = exc.errors()[0]
            report.skipped.append(f"line {lineno}: {first['msg']} at {first['loc']}")
    return entries, report, len(data)


class SessionStore:
    """One open session log. Create with `create`, `open` or `fork`; close when done."""

    def __init__(self, path: Path, entries: list[SessionEntry], report: LoadReport) -> None:
        self.path = path
        self.entries = entries
        self.report = report
        self._by_id = {e.id: e for e in entries}
        self.ancestors: list[SessionStore] = []
        self._lock = _WriterLock(path)
        self._fd: int | None = None
        self.leaf_id: str | None = entries[-1].id if entries else None
        self._branch: tuple[str | None, list[SessionEntry]] = (None, [])
        self.secrets: KnownSecrets | None = None
        """values replaced by `[secret]` in every entry appended"""

    # ------------------------------------------------------------ lifecycle

    @classmethod
    def create(
        cls,
        folder: Path,
        cwd: Path,
        *,
        agent_id: str | None = None,
        session_id: str | None = None,
        parent: tuple[str, str] | None = None,
    ) -> SessionStore:
        """A new log `folder/<session_id>.jsonl` starting with its header entry."""
        session_id = session_id or f"s-{new_id()}"
        path = private_dir(folder) / f"{session_id}.jsonl"
        if path.exists():
            raise SessionError(f"session {session_id} already exists at {path}")
        store = cls(path, [], LoadReport())
        store._open_for_append()
        header = SessionHeaderEntry(
            id=new_id(),
            ts=time.time(),
            details=SessionHeaderDetails(
                session_id=session_id,
                cwd=str(cwd),
                agent_id=agent_id,
                parent_session=parent[0] if parent else None,
                parent_entry=parent[1] if parent else None,
            ),
        )
        store._write(header)
        store.leaf_id = parent[1] if parent else header.id
        return store

    @classmethod
    def open(cls, path: Path) -> SessionStore:
        """Load and take the writer lock. Damage is reported in `.report`, never fatal."""
        if not path.exists():
            raise SessionNotFoundError(f"no session log at {path}")
        lock = _WriterLock(path)
        lock.acquire(path)
        try:
            entries, report, intact = _read_entries(path)
            if report.torn is not None:
                _set_aside(path, intact, report.torn)
            for problem in report.skipped:
                log_.warning("%s: skipped damaged entry, %s", path, problem)
        except BaseException:
            lock.release()
            raise
        store = cls(path, entries, report)
        store._lock = lock
        store._fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        if store.header and store.header.details.parent_entry and len(entries) == 1:
            store.leaf_id = store.header.details.parent_entry
        return store

    @classmethod
    def read(cls, path: Path) -> SessionStore:
        """Load without the writer lock, for reading only (a fork's ancestors, recall, CLI)."""
        if not path.exists():
            raise SessionNotFoundError(f"no session log at {path}")
        entries, report, _ = _read_entries(path)
        return cls(path, entries, report)

    def _open_for_append(self) -> None:
        self._lock.acquire(self.path)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.fsync(self._fd)
            os.close(self._fd)
            self._fd = None
        self._lock.release()

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ reading

    @property
    def header(self) -> SessionHeaderEntry | None:
        first = self.entries[0] if self.entries else None
        return first if isinstance(first, SessionHeaderEntry) else None

    @property
    def session_id(self) -> str:
        return self.header.details.session_id if self.header else self.path.stem

    def get(self, entry_id: str) -> SessionEntry | None:
        found = self._by_id.get(entry_id)
        if found is None:
            for parent in self.ancestors:
                if (found := parent.get(entry_id)) is not None:
                    break
        return found

    def attach_parents(self, parents: Sequence[SessionStore]) -> None:
        """Give a forked session read access to the logs its lineage points into."""
        self.ancestors = list(parents)

    def branch(self, leaf_id: str | None = None) -> list[SessionEntry]:
        """The chain from the root to `leaf_id` (default the active leaf), oldest first."""
        target = leaf_id or self.leaf_id
        if target is not None and self._branch[0] == target:
            return list(self._branch[1])
        chain: list[SessionEntry] = []
        cursor = target
        seen: set[str] = set()
        local = self._by_id.get  # this log's entries first: the walk reads every one of them
        while cursor is not None and cursor not in seen:
            seen.add(cursor)
            entry = local(cursor)
            if entry is None and (entry := self.get(cursor)) is None:
                break
            chain.append(entry)
            cursor = entry.parent_id
        chain.reverse()
        self._branch = (target, chain)
        return list(chain)

    def __iter__(self) -> Iterator[SessionEntry]:
        return iter(self.entries)

    # ------------------------------------------------------------ writing

    def append(self, entry_cls: type[Any], details: Any, *, parent_id: str | None = None) -> Any:
        """Append a new entry of `entry_cls` whose parent is the active leaf (or `parent_id`)."""
        entry = entry_cls(
            id=new_id(),
            parent_id=parent_id if parent_id is not None else self.leaf_id,
            ts=time.time(),
            details=details,
        )
        if self.secrets is not None:
            entry = self.secrets.redact_model(entry)
        self._write(entry)
        self.leaf_id = entry.id
        return entry

    def _write(self, entry: SessionEntry) -> None:
        if self._fd is None:
            raise SessionError(f"session {self.path} is closed")
        # the serializer's bytes as they are (model_dump_json would decode them to str, and
        # encode + "\n" copy them twice more); the newline goes in the same syscall
        data = externalise(entry.__pydantic_serializer__.to_json(entry), self.path.parent)
        written = os.writev(self._fd, (data, _NEWLINE))
        if written != len(data) + 1:  # a short write on a regular file means the disk is full
            raise SessionError(f"short write to {self.path}: {written} of {len(data) + 1} bytes")
        self.entries.append(entry)
        self._by_id[entry.id] = entry
        cached_leaf, chain = self._branch
        if cached_leaf is not None and entry.parent_id == cached_leaf:
            self._branch = (entry.id, [*chain, entry])

    def sync(self) -> None:
        """Make everything appended so far durable (fsync); called at turn end."""
        if self._fd is not None:
            os.fsync(self._fd)


def _set_aside(path: Path, intact: int, where: str) -> None:
    """Move the torn tail to `<log>.torn-<offset>` and cut the log back to its intact part."""
    sidecar = path.with_name(f"{path.name}.torn-{intact}")
    with path.open("rb") as src:
        src.seek(intact)
        sidecar.write_bytes(src.read())
    os.chmod(sidecar, 0o600)
    with path.open("r+b") as log:
        log.truncate(intact)
        log.flush()
        os.fsync(log.fileno())
    log_.warning("%s: torn last entry at %s moved to %s", path, where, sidecar.name)


def is_session_id(text: str) -> bool:
    """Whether `text` is a session id as `SessionStore.create` makes them (`s-` + 16 hex)."""
    return SESSION_ID.fullmatch(text) is not None


def find_session(home: Path, session_id: str) -> Path:
    """The log of `session_id` under SHARD_HOME: `sessions/` or an agent's `sessions/`.

    The id is a file name, never a pattern or a path: no glob, and a name with a separator or
    `..` names no session (so `../../elsewhere/x` cannot reach a log outside SHARD_HOME).
    """
    if not _PLAIN_NAME.fullmatch(session_id) or ".." in session_id:
        raise SessionNotFoundError(f"no session {session_id!r} under {home}")
    name = f"{session_id}.jsonl"
    folders = [home / "sessions"]
    with contextlib.suppress(OSError), os.scandir(home / "agents") as agents:
        folders += sorted(Path(a.path) / "sessions" for a in agents if a.is_dir())
    for candidate in (folder / name for folder in folders):
        if candidate.is_file():
            return candidate
    raise SessionNotFoundError(f"no session {session_id!r} under {home}")


def load_lineage(store: SessionStore, home: Path) -> list[SessionStore]:
    """Attach every ancestor of a forked session (read-only); returns them, nearest first."""
    ancestors: list[SessionStore] = []
    current = store
    seen = {store.session_id}
    while current.header and (parent_id := current.header.details.parent_session):
        if parent_id in seen:
            raise SessionError(f"session lineage loops back to {parent_id}")
        seen.add(parent_id)
        current = SessionStore.read(find_session(home, parent_id))
        ancestors.append(current)
    for i, s in enumerate([store, *ancestors[:-1]]):
        s.attach_parents(ancestors[i:])
    return ancestors
