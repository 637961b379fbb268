"""CodeIndex: the workspace's definitions and references, kept current file by file.

Implements the L1 `CodeIntelligenceProvider`. The walk is the tools' own (`.gitignore` and
`.ignore` respected, hidden entries and symlinks skipped). A file is re-parsed only when its
content hash changed; an unchanged stat (mtime, size) skips even the hash. The index is
bounded: files over `max_file_bytes` and files past `max_files` are left out, each bound
reported once in `diagnostics`. A build writes its store as it goes (every `save_every` files
parsed or SAVE_INTERVAL seconds), so one killed halfway resumes where it was; a build that fails
says so in `coverage` (the answers then come from what it indexed) and the next `begin` tries
once more.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from shard_core.capabilities.code_index import store
from shard_core.capabilities.code_index.languages import language_of
from shard_core.capabilities.code_index.parse import Definition, symbols_from_row
from shard_core.capabilities.code_index.pool import (
    Job,
    ParsePool,
    ParseWorkersError,
    Result,
    parse_job,
)
from shard_core.capabilities.code_index.relevance import by_relevance
from shard_core.capabilities.code_index.store import IndexedFile
from shard_core.contracts.codeintel import Symbol
from shard_core.engine.plurals import counted
from shard_core.tools.ignore import IgnoreRules, walk_files

MAX_FILES = 20_000
MAX_FILE_BYTES = 1_000_000
SAVE_INTERVAL = 30.0
SAVE_EVERY = 500
"""files a build parses at least between two writes of its store, and at least as many as the
last write held (or SAVE_INTERVAL seconds): the writes of a cold build add up to under twice
the last one (1,149 files: a write takes 0.3-0.7 s at load 10)"""
BUILD_ATTEMPTS = 2
"""background builds begun before a failed one is left as it stopped"""
FIRST_FILES = 50
"""files a background build parses before the first answer (nearest the focus first)"""
_LOCAL_SCOPES = frozenset({"function", "method"})
log = logging.getLogger("shard.code_index")


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
        pool: ParsePool | None = None,
        save_every: int = SAVE_EVERY,
    ) -> None:
        self.root = Path(os.path.realpath(root))
        self.store_path = store.index_path(home, self.root) if home is not None else None
        self.max_files = max_files
        self.max_file_bytes = max_file_bytes
        self.save_every = save_every
        self.files: dict[str, IndexedFile] = {}
        self.stats = IndexStats()
        self.pool = ParsePool() if pool is None else pool
        self._lock = threading.RLock()
        self._refreshing = threading.Lock()
        """held by the one whole-workspace pass at a time (queries take only `_lock`)"""
        self._background: threading.Thread | None = None
        self._first = threading.Event()
        """set once a background build's first files are in (or it ended)"""
        self._expected: int | None = None
        """files the last walk found (None before the first walk)"""
        self._touched: set[str] = set()
        """files re-indexed by an edit or a question since the current pass began"""
        self._seen: set[str] = set()
        """files the current pass found current or has parsed"""
        self._loaded = False
        self._dirty = False
        self._unsaved = 0
        """files parsed or dropped since the store was last written"""
        self._saved_files = 0
        self._saved_at = time.monotonic()
        self.failure: str | None = None
        """why the last background build stopped before the end (None: it did not)"""
        self._attempts = 0
        self.version = 0
        """bumped whenever any file's symbols change (the repo map caches on it)"""

    # ------------------------------------------------------------ keeping current

    def refresh(self) -> int:
        """Bring the whole workspace up to date; returns how many files were re-parsed."""
        with self._refreshing:
            return self._refresh(())

    def ensure(self) -> None:
        """The whole workspace indexed once per process (a background build is waited for);
        later, edits keep it current."""
        self.wait()
        with self._refreshing:
            if self.stats.refreshes == 0:
                self._refresh(())

    def begin(self, focus: Iterable[str] = ()) -> None:
        """Answer soon, complete later: returns once the files nearest the focus
        (workspace-relative paths: the files themselves, their directories, the files they
        import) are indexed, and indexes the rest in a background thread. A workspace with
        fewer than the pool's `min_files` to parse is indexed whole before this returns.
        Once per process; `coverage` says how far it got, `wait` waits for the rest."""
        with self._lock:
            before = self._background
            again = (
                (before is None or not before.is_alive())
                and self.failure is not None
                and self._attempts < BUILD_ATTEMPTS
            )
            if before is None or again:
                if self.stats.refreshes and not again:
                    return  # (indexed whole already)
                self._attempts += 1
                self._first = threading.Event()
                wanted = list(dict.fromkeys(focus))
                self._background = threading.Thread(
                    target=self._build, args=(wanted,), name="shard-code-index", daemon=True
                )
                self._background.start()
            first = self._first
        first.wait()

    def wait(self) -> None:
        """Until a background build (if one was begun) has finished."""
        thread = self._background
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def coverage(self) -> str | None:
        """While a background build runs, or after one failed: how much of the workspace the
        answers cover."""
        if self.failure is not None:
            with self._lock:
                done = len(self.files)
            then = (
                "the next question tries again"
                if self._attempts < BUILD_ATTEMPTS
                else "a file asked about by path is still indexed, and `/index refresh` retries"
            )
            return (
                f"indexing stopped ({self.failure}): the answers cover the "
                f"{counted(done, 'file')} indexed before that; {then}"
            )
        if self._background is None or self.stats.refreshes:
            return None
        with self._lock:
            done, total = len(self._seen | self._touched), self._expected
        if total is None:
            return f"indexed {counted(done, 'file')} so far; the workspace is being indexed"
        return f"indexed {done:,} of {total:,} files; the rest is being indexed"

    def close(self) -> None:
        """Stop a background build (what it indexed stays) and end any parse workers."""
        self.pool.close()
        self.wait()

    def _build(self, focus: list[str]) -> None:
        first = self._first
        try:
            with self._refreshing:
                if not self.stats.refreshes or self.failure is not None:
                    self._refresh(focus, first=first)
        except Exception as error:  # (the thread's end: the tools say so, not "being indexed")
            self.failure = f"{type(error).__name__}: {error}"
            log.warning("the code index build stopped", exc_info=True)
            self._save_progress()  # what it parsed is not parsed again
        finally:
            first.set()

    def _refresh(self, focus: Sequence[str], first: threading.Event | None = None) -> int:
        """One pass over the workspace. With `first`: the FIRST_FILES nearest the focus are
        parsed in-process and `first` set, then the rest is parsed."""
        started = time.perf_counter()
        self.failure = None
        with self._lock:
            self._load()
            self._touched = set()
        before = self.stats.parsed
        seen, jobs, skipped_big, notes = self._survey()
        self._seen, self._expected = seen, len(seen) + len(jobs)
        if focus:
            jobs = by_relevance(jobs, focus, self.root)
        head = len(jobs) if first is None or len(jobs) < self.pool.min_files else FIRST_FILES
        stopped = False
        try:
            self._run(jobs[:head], seen)
            if first is not None:
                first.set()
            self._run(jobs[head:], seen)
        except ParseWorkersError as error:
            stopped = True
            notes.append(f"indexing stopped: {error}")
            if not self.pool.closed:  # (a worker failed: what it did not reach is missing)
                self.failure = str(error)
        with self._lock:
            if not stopped:  # (else what was not reached yet is not gone)
                for rel in [r for r in self.files if r not in seen and r not in self._touched]:
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

    def _survey(self) -> tuple[set[str], list[Job], int, list[str]]:
        """The walk, up to the file cap: (files unchanged by their stat, the files to read,
        how many are too big, notes)."""
        seen: set[str] = set()
        jobs: list[Job] = []
        too_big = 0
        notes: list[str] = []
        prefix = len(str(self.root)) + 1
        for entry in walk_files(self.root, self.root, hidden=False):
            if entry.is_symlink or language_of(entry.name) is None:
                continue
            if len(seen) + len(jobs) >= self.max_files:
                notes.append(f"stopped at {self.max_files} files (the index's file cap)")
                break
            rel = str(entry.path)[prefix:]  # (walk paths start with the root)
            with self._lock:
                outcome = self._job(rel, entry.path)
            if not isinstance(outcome, str):
                jobs.append(outcome)
            elif outcome == "too big":
                too_big += 1
            elif outcome == "same":
                seen.add(rel)
        return seen, jobs, too_big, notes

    def _run(self, jobs: list[Job], seen: set[str]) -> None:
        """Parse the jobs (in worker processes when there are many) and take in the results,
        except for files an edit re-indexed meanwhile (theirs is newer)."""
        for result in self.pool.run(jobs):
            if result is None:
                continue  # gone between the stat and the read
            with self._lock:
                if result[0] not in self._touched:
                    self._take(result)
                seen.add(result[0])
            if self._save_due():
                self._save_progress()

    def _save_due(self) -> bool:
        if self.store_path is None or self._unsaved < self.save_every:
            return False
        late = time.monotonic() - self._saved_at >= SAVE_INTERVAL
        return late or self._unsaved >= self._saved_files

    def _save_progress(self) -> None:
        """Write what the build has so far (a restart resumes from it); a store that cannot be
        written is a note, and the build goes on in memory."""
        try:
            self.save()
        except OSError as error:
            self._saved_at, self._unsaved = time.monotonic(), 0  # (not again at once)
            note = f"the index could not be written: {error}"
            if note not in self.stats.diagnostics:
                self.stats.diagnostics.append(note)

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
                self._touched.add(rel)
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
                self._unsaved, self._saved_files = 0, len(self.files)
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
        reference it, most references first: from what is indexed (see `ensure`, `begin`)."""
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
            self._touched.add(rel)
            return rel, self.files.get(rel)

    def _update(self, rel: str, path: Path) -> str:
        """Re-parse `rel` if its content changed: "same", "parsed", "gone" or "too big"."""
        job = self._job(rel, path)
        if isinstance(job, str):
            return job
        result = parse_job(job)
        return "gone" if result is None else self._take(result)

    def _job(self, rel: str, path: Path) -> Job | str:
        """What `rel` needs, from its stat: "same", "gone", "too big", or reading (a job)."""
        try:
            info = path.stat()
        except OSError:
            return "gone"
        if not stat.S_ISREG(info.st_mode):
            return "gone"  # a FIFO or device: reading it could block the index for ever
        if info.st_size > self.max_file_bytes:
            return "too big"
        known = self.files.get(rel)
        if known is not None and (known.mtime_ns, known.size) == (info.st_mtime_ns, info.st_size):
            return "same"
        language = language_of(rel)
        assert language is not None
        digest = known.digest if known is not None else ""
        return rel, str(path), language, info.st_mtime_ns, info.st_size, digest

    def _take(self, result: Result) -> str:
        """A read file's result into the table: "same" (content as known) or "parsed"."""
        rel, mtime_ns, size, digest, row = result
        if row is None:
            known = self.files[rel]
            known.mtime_ns, known.size = mtime_ns, size
            self._dirty = True
            return "same"
        self.stats.parsed += 1
        self.files[rel] = IndexedFile(mtime_ns, size, digest, symbols_from_row(row))
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
        self._unsaved += 1
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
