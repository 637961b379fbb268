"""CodeIndex: the workspace's definitions and references, kept current file by file.

Implements the L1 `CodeIntelligenceProvider`. The walk is the tools' own (`.gitignore` and
`.ignore` respected, hidden entries and symlinks skipped). A file is re-parsed only when its
content hash changed; an unchanged stat (mtime, size) skips even the hash. The index is
bounded: files over `max_file_bytes` and files past `max_files` are left out, each bound
reported once in `diagnostics`.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from shard_core.capabilities.code_index import store
from shard_core.capabilities.code_index.languages import language_of
from shard_core.capabilities.code_index.parse import Definition, parse_source
from shard_core.capabilities.code_index.store import IndexedFile
from shard_core.contracts.codeintel import Symbol
from shard_core.engine.plurals import counted
from shard_core.tools.ignore import IgnoreRules, walk_files

MAX_FILES = 20_000
MAX_FILE_BYTES = 1_000_000
SAVE_INTERVAL = 30.0
_LOCAL_SCOPES = frozenset({"function", "method"})


@dataclass
class IndexStats:
    parsed: int = 0
    """files parsed by this process (a re-parse counts again)"""
    refreshes: int = 0
    last_update: float | None = None
    last_seconds: float = 0.0
    diagnostics: list[str] = field(default_factory=list[str])


class CodeIndex:
    name = "tree-sitter"

    def __init__(
        self,
        root: Path,
        home: Path | None = None,
        *,
        max_files: int = MAX_FILES,
        max_file_bytes: int = MAX_FILE_BYTES,
    ) -> None:
        self.root = Path(os.path.realpath(root))
        self.store_path = store.index_path(home, self.root) if home is not None else None
        self.max_files = max_files
        self.max_file_bytes = max_file_bytes
        self.files: dict[str, IndexedFile] = {}
        self.stats = IndexStats()
        self._lock = threading.RLock()
        self._loaded = False
        self._dirty = False
        self._saved_at = time.monotonic()
        self.version = 0
        """bumped whenever any file's symbols change (the repo map caches on it)"""

    # ------------------------------------------------------------ keeping current

    def refresh(self) -> int:
        """Bring the whole workspace up to date; returns how many files were re-parsed."""
        with self._lock:
            started = time.perf_counter()
            self._load()
            before = self.stats.parsed
            seen: set[str] = set()
            notes: list[str] = []
            skipped_big = 0
            prefix = len(str(self.root)) + 1
            for entry in walk_files(self.root, self.root, hidden=False):
                if entry.is_symlink or language_of(entry.name) is None:
                    continue
                if len(seen) >= self.max_files:
                    notes.append(f"stopped at {self.max_files} files (the index's file cap)")
                    break
                rel = str(entry.path)[prefix:]  # (walk paths start with the root)
                outcome = self._update(rel, entry.path)
                if outcome == "too big":
                    skipped_big += 1
                elif outcome != "gone":
                    seen.add(rel)
            for rel in [r for r in self.files if r not in seen]:
                del self.files[rel]
                self._changed()
            if skipped_big:
                notes.append(
                    f"skipped {counted(skipped_big, 'file')} over {self.max_file_bytes} bytes"
                )
            self.stats.diagnostics = notes
            self.stats.refreshes += 1
            self._finish(started)
            return self.stats.parsed - before

    def ensure(self) -> None:
        """Refresh once per process before the first question; later, edits keep it current."""
        with self._lock:
            if self.stats.refreshes == 0:
                self.refresh()

    def update(self, paths: Iterable[str | Path]) -> int:
        """Re-index just these files (changed, created or deleted); returns how many were
        re-parsed. Paths outside the workspace, ignored or in no known language are skipped."""
        with self._lock:
            started = time.perf_counter()
            self._load()
            before = self.stats.parsed
            for raw in paths:
                rel = self.relative(raw)
                if rel is None or language_of(rel) is None or self._ignored(rel):
                    continue
                outcome = self._update(rel, self.root / rel)
                if outcome in ("gone", "too big") and self.files.pop(rel, None) is not None:
                    self._changed()
            self._finish(started, save=time.monotonic() - self._saved_at >= SAVE_INTERVAL)
            return self.stats.parsed - before

    def invalidate(self, path: str) -> None:
        self.update([path])

    def save(self) -> None:
        """Write the index if it changed since the last write. A full refresh writes; single
        updates write at most every SAVE_INTERVAL seconds (and the capability writes at
        shutdown), so an edit never pays for serialising the whole workspace."""
        with self._lock:
            if self._dirty and self.store_path is not None:
                store.save(self.store_path, self.root, self.files)
                self._dirty = False
                self._saved_at = time.monotonic()

    # ------------------------------------------------------------ CodeIntelligenceProvider

    def outline(self, path: str) -> list[Symbol]:
        rel, entry = self._file(path)
        if entry is None or rel is None:
            return []
        return [_symbol(d, rel) for d in entry.symbols.definitions]

    def definitions(self, path: str) -> list[Definition]:
        """The file's definitions with their nesting (`parent`), for the outline tree."""
        _, entry = self._file(path)
        return list(entry.symbols.definitions) if entry is not None else []

    def symbol(self, name: str) -> list[Symbol]:
        """Definitions named `name` (top-level first, then by path), then the files that
        reference it, most references first."""
        self.ensure()
        with self._lock:
            defs = [
                (d.parent >= 0, rel, d.line, _symbol(d, rel))
                for rel, entry in self.files.items()
                for d in entry.symbols.definitions
                if d.name == name
            ]
            refs = [
                (-entry.symbols.references[name], rel)
                for rel, entry in self.files.items()
                if name in entry.symbols.references
            ]
        found = [s for *_, s in sorted(defs, key=lambda d: d[:3])]
        for count, rel in sorted(refs):
            found.append(Symbol(name, "reference", rel, 0, counted(-count, "reference")))
        return found

    def signatures(self, path: str) -> list[str]:
        """The file's API in source order: public definitions (and `__init__`) that are not
        local to a function, as the Type Catalog shows them."""
        defs = self.definitions(path)
        return [
            d.signature
            for d in defs
            if d.kind != "heading"
            and (not d.name.startswith("_") or d.name == "__init__")
            and (d.parent < 0 or defs[d.parent].kind not in _LOCAL_SCOPES)
        ]

    # ------------------------------------------------------------ helpers

    def relative(self, raw: str | Path) -> str | None:
        """`raw` (absolute, or relative to the workspace) as the index's key, if inside."""
        path = Path(raw)
        full = path if path.is_absolute() else self.root / path
        real = Path(os.path.realpath(full))
        if not real.is_relative_to(self.root) or real == self.root:
            return None
        return real.relative_to(self.root).as_posix()

    def snapshot(self) -> dict[str, IndexedFile]:
        """A consistent copy of the file table (entries are replaced, never changed in place,
        except for a re-stat of unchanged content)."""
        with self._lock:
            return dict(self.files)

    def languages(self) -> dict[str, int]:
        with self._lock:
            counts: dict[str, int] = {}
            for entry in self.files.values():
                lang = entry.symbols.language
                counts[lang] = counts.get(lang, 0) + 1
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    def _file(self, path: str) -> tuple[str | None, IndexedFile | None]:
        """The file's entry, brought up to date first (one stat; a parse only if it changed)."""
        rel = self.relative(path)
        if rel is None or language_of(rel) is None:
            return rel, None
        with self._lock:
            self._load()
            if self._ignored(rel):
                return rel, self.files.get(rel)
            if self._update(rel, self.root / rel) in ("gone", "too big"):
                self.files.pop(rel, None)
            return rel, self.files.get(rel)

    def _update(self, rel: str, path: Path) -> str:
        """Re-parse `rel` if its content changed: "same", "parsed", "gone" or "too big"."""
        try:
            info = path.stat()
        except OSError:
            return "gone"
        if info.st_size > self.max_file_bytes:
            return "too big"
        known = self.files.get(rel)
        if known is not None and (known.mtime_ns, known.size) == (info.st_mtime_ns, info.st_size):
            return "same"
        try:
            data = path.read_bytes()
        except OSError:
            return "gone"
        digest = hashlib.blake2b(data, digest_size=16).hexdigest()
        if known is not None and known.digest == digest:
            known.mtime_ns, known.size = info.st_mtime_ns, info.st_size
            self._dirty = True
            return "same"
        language = language_of(rel)
        assert language is not None
        symbols = parse_source(language, data)
        self.stats.parsed += 1
        self.files[rel] = IndexedFile(info.st_mtime_ns, info.st_size, digest, symbols)
        self._changed()
        return "parsed"

    def _ignored(self, rel: str) -> bool:
        """What the walk would skip: a hidden part, or an ignored file or parent directory."""
        parts = Path(rel).parts
        if any(part.startswith(".") for part in parts):
            return True
        current, rules = self.root, IgnoreRules().entering(self.root)
        for part in parts[:-1]:
            current = current / part
            if rules.ignores(current, True):
                return True
            rules = rules.entering(current)
        return rules.ignores(self.root / rel, False)

    def _changed(self) -> None:
        self._dirty = True
        self.version += 1

    def _load(self) -> None:
        if not self._loaded:
            self._loaded = True
            if self.store_path is not None:
                self.files = store.load(self.store_path, self.root)

    def _finish(self, started: float, *, save: bool = True) -> None:
        self.stats.last_update = time.time()
        self.stats.last_seconds = time.perf_counter() - started
        if save:
            self.save()


def _symbol(d: Definition, rel: str) -> Symbol:
    return Symbol(d.name, d.kind, rel, d.line, d.signature)
