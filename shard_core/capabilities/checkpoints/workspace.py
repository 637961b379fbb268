"""The workspace's files as the checkpoints see them: one file's state, and a bounded scan.

A scan walks the files git would track (`.gitignore` and `.ignore` respected, `.git` never
entered, symlinks never followed) and stops at `max_files` files, saying so. Nothing here runs
git or reads a repository's index: a folder that is not a repository is scanned the same way.
Every file's content is kept in the BlobStore the first time it is seen with a new stat, so a
later command that rewrites or deletes it can be undone.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from shard_core.capabilities.checkpoints.store import BlobStore, blob_id
from shard_core.tools.ignore import walk_files

DEFAULT_MAX_SCAN_FILES = 20_000

Signature = tuple[int, int, int]
"""(mtime_ns, size, inode): a file whose signature is unchanged is taken as unchanged."""


@dataclass(frozen=True)
class FileState:
    """A file at one moment: absent, or its blob (None when not kept, with the reason)."""

    exists: bool
    blob: str | None = None
    note: str | None = None
    signature: Signature | None = None


ABSENT = FileState(False)


@dataclass
class Manifest:
    files: dict[str, FileState] = field(default_factory=dict[str, FileState])
    gave_up: str | None = None


def signature(st: os.stat_result) -> Signature:
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def inside(root: Path, path: Path) -> str | None:
    """`path` relative to `root` ('/'-separated), None when it lies outside."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return None


class Workspace:
    """One workspace root and what the checkpoints last knew of its files."""

    def __init__(
        self, root: Path, blobs: BlobStore, *, max_files: int = DEFAULT_MAX_SCAN_FILES
    ) -> None:
        self.root = root
        self.blobs = blobs
        self.max_files = max_files
        self.known: dict[str, FileState] = {}
        """per relative path, the newest state seen (a signature match skips re-reading)"""

    def state(self, rel: str) -> FileState:
        """The file's state now, its content kept in the store."""
        path = self.root / rel
        try:
            st = path.lstat()
        except FileNotFoundError:
            self.known.pop(rel, None)
            return ABSENT
        except OSError as exc:
            return FileState(True, None, f"cannot be read: {exc.strerror}")
        if not stat.S_ISREG(st.st_mode):  # lstat: a symlink is not one either
            return FileState(True, None, "not a regular file")
        sig = signature(st)
        cached = self.known.get(rel)
        if cached is not None and cached.signature == sig:
            return cached
        if st.st_size > self.blobs.max_file_bytes:
            found = FileState(True, None, _too_big(st.st_size, self.blobs), sig)
        else:
            try:
                data = path.read_bytes()
            except OSError as exc:
                return FileState(True, None, f"cannot be read: {exc.strerror}")
            kept = self.blobs.put(data, blob_id(data))
            found = FileState(True, kept.blob, kept.note, sig)
        self.known[rel] = found
        return found

    def wrote(self, rel: str, blob: str | None) -> FileState:
        """The state of a file just written with the bytes of `blob` (kept already), or just
        deleted (None): stat only, nothing read again."""
        if blob is None:
            self.known.pop(rel, None)
            return ABSENT
        found = FileState(True, blob, None, signature((self.root / rel).lstat()))
        self.known[rel] = found
        return found

    def scan(self) -> Manifest:
        """Every tracked file's state now (bounded by `max_files`)."""
        manifest = Manifest()
        for count, entry in enumerate(walk_files(self.root, self.root)):
            if count >= self.max_files:
                manifest.gave_up = (
                    f"the workspace scan stopped at {self.max_files:,} files; changes to "
                    "files beyond them are not checkpointed"
                )
                break
            if entry.is_symlink:
                continue
            rel = inside(self.root, entry.path)
            if rel is not None:
                manifest.files[rel] = self.state(rel)
        return manifest


def _too_big(size: int, blobs: BlobStore) -> str:
    return f"too big to keep ({size:,} bytes > {blobs.max_file_bytes:,})"
