"""RecallIndex: a rebuildable SQLite (FTS5) cache of one session JSONL, beside it.

The JSONL is the source of truth. The cache (`<log>.recall.sqlite`) holds, per parsed entry,
its local position, id, label, byte offset (so `expand` reads the line itself), the files it
touched and — for searchable entries — its text in an FTS5 table ranked by bm25. Each open
indexes only the lines appended since the last one; a missing, corrupt, foreign-version or
out-of-date cache (the log shrank or its first line changed) is rebuilt from scratch. Lines
are split on LF only and parsed like the session store does, so positions agree with it.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from shard_core.engine.recall.documents import Doc, document
from shard_core.engine.recall.schema import (
    SCHEMA_VERSION,
    cache_path,
    connect,
    first_line_hash,
)
from shard_core.types import CompactionEntry, SessionEntry, SessionHeaderEntry, ToolResultEntry
from shard_core.types.base import DEFERRED

log_ = logging.getLogger("shard.recall")

ENTRY: TypeAdapter[SessionEntry] = TypeAdapter(SessionEntry, config=DEFERRED)


class RecallIndex:
    """One session log's cache. Open with `RecallIndex.open(log)`; close when done."""

    def __init__(self, log: Path, conn: sqlite3.Connection) -> None:
        self.log = log
        self.conn = conn
        self.meta: dict[str, str] = dict(conn.execute("SELECT key, value FROM meta").fetchall())

    @classmethod
    def open(cls, log: Path, *, update: bool = True) -> RecallIndex:
        """The cache for `log`, brought up to date. Falls back to an in-memory index when the
        cache file cannot be written (a read-only folder)."""
        db = cache_path(log)
        for attempt in range(2):
            conn: sqlite3.Connection | None = None
            try:
                conn = connect(db)
                index = cls(log, conn)
                if index.meta.get("version", SCHEMA_VERSION) != SCHEMA_VERSION:
                    raise sqlite3.DatabaseError("the cache has another schema version")
                if update:
                    index.update()
                return index
            except sqlite3.DatabaseError:
                log_.warning("recall cache %s unusable; rebuilding", db, exc_info=attempt > 0)
                if conn is not None:
                    conn.close()
                with contextlib.suppress(OSError):
                    db.unlink()
            except OSError:
                break
        index = cls(log, connect(None))
        index.update()
        return index

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> RecallIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ indexing

    def update(self) -> int:
        """Index lines appended since the last update; returns how many entries were added."""
        size = self.log.stat().st_size
        head = first_line_hash(self.log)
        same = self.meta.get("head") == head and self.meta.get("version") == SCHEMA_VERSION
        if same and size == int(self.meta.get("bytes", "-1")):
            return 0
        with self.conn:
            self.conn.execute("BEGIN IMMEDIATE")  # one indexer at a time; re-read under the lock
            self.meta = dict(self.conn.execute("SELECT key, value FROM meta").fetchall())
            done = int(self.meta.get("bytes", "0"))
            fresh = self.meta.get("version") == SCHEMA_VERSION and self.meta.get("head") == head
            if not fresh or size < done:
                self._reset()
                done = 0
            with self.log.open("rb") as f:
                f.seek(done)
                data = f.read(max(0, size - done))
            end = data.rfind(b"\n") + 1  # a torn last line waits for its newline
            added = self._index_lines(data[:end], done)
            self._set_meta(bytes=str(done + end), head=head, version=SCHEMA_VERSION)
        return added

    def _reset(self) -> None:
        for table in ("meta", "entries", "docs", "calls", "compactions"):
            self.conn.execute(f"DELETE FROM {table}")
        self.conn.execute("INSERT INTO fts(fts) VALUES ('delete-all')")
        self.meta = {}

    def _set_meta(self, **values: str) -> None:
        self.conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", list(values.items()))
        self.meta.update(values)

    def _index_lines(self, data: bytes, base: int) -> int:
        pos = int(self.meta.get("count", "0"))
        start = pos
        offset = 0
        while offset < len(data):
            end = data.index(b"\n", offset)
            line = data[offset:end]
            if line.strip():
                try:
                    entry = ENTRY.validate_json(line)
                except ValidationError:
                    log_.warning("%s: skipping a damaged line at byte %d", self.log, base + offset)
                else:
                    self._insert(pos, entry, base + offset, end - offset)
                    pos += 1
            offset = end + 1
        self._set_meta(count=str(pos))
        return pos - start

    def _insert(self, pos: int, entry: SessionEntry, offset: int, length: int) -> None:
        doc = document(entry)
        paths = doc.paths
        if isinstance(entry, ToolResultEntry):
            paths = self._call_paths(entry.details.tool_call_id)
        joined = "\n" + "\n".join(paths) + "\n" if paths else ""
        self.conn.execute(
            "INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?)",
            (pos, entry.id, doc.kind, doc.label, offset, length, joined),
        )
        self._extras(pos, entry, doc)

    def _extras(self, pos: int, entry: SessionEntry, doc: Doc) -> None:
        if doc.searchable:
            self.conn.execute("INSERT INTO docs VALUES (?, ?)", (pos, doc.text))
            self.conn.execute("INSERT INTO fts(rowid, body) VALUES (?, ?)", (pos, doc.text))
        if doc.calls:
            rows = [(call_id, "\n".join(paths)) for call_id, paths in doc.calls]
            self.conn.executemany("INSERT OR REPLACE INTO calls VALUES (?, ?)", rows)
        if isinstance(entry, SessionHeaderEntry) and pos == 0:
            d = entry.details
            self._set_meta(
                session_id=d.session_id,
                parent_session=d.parent_session or "",
                parent_entry=d.parent_entry or "",
            )
        elif isinstance(entry, CompactionEntry):
            d = entry.details
            self.conn.execute(
                "INSERT INTO compactions VALUES (?, ?, ?, ?, ?)",
                (pos, d.index, d.range_first_id, d.range_last_id, d.first_kept_entry_id),
            )

    def _call_paths(self, call_id: str) -> tuple[str, ...]:
        row = self.conn.execute("SELECT paths FROM calls WHERE id = ?", (call_id,)).fetchone()
        return tuple(p for p in str(row[0]).split("\n") if p) if row else ()

    # ------------------------------------------------------------ reading

    @property
    def count(self) -> int:
        return int(self.meta.get("count", "0"))

    def position_of(self, entry_id: str) -> int | None:
        row = self.conn.execute("SELECT pos FROM entries WHERE id = ?", (entry_id,)).fetchone()
        return int(row[0]) if row else None

    def read(self, pos: int) -> SessionEntry | None:
        """The entry at `pos`, parsed from its line in the log itself."""
        row = self.conn.execute(
            "SELECT offset, length FROM entries WHERE pos = ?", (pos,)
        ).fetchone()
        if row is None:
            return None
        with self.log.open("rb") as f:
            f.seek(int(row[0]))
            return ENTRY.validate_json(f.read(int(row[1])))

    def labels(self, positions: list[int]) -> dict[int, tuple[str, str]]:
        """pos → (label, first 300 characters of the text) for result lines."""
        marks = ",".join("?" * len(positions))
        rows = self.conn.execute(
            f"SELECT e.pos, e.label, substr(coalesce(d.body, ''), 1, 300) FROM entries e "
            f"LEFT JOIN docs d ON d.pos = e.pos WHERE e.pos IN ({marks})",
            positions,
        ).fetchall()
        return {int(r[0]): (str(r[1]), str(r[2])) for r in rows}

    def search(self, query: str, lo: int, hi: int, limit: int) -> list[tuple[int, float]]:
        """(pos, bm25 rank) of the best FTS5 matches with lo <= pos <= hi, best first."""
        rows = self.conn.execute(
            "SELECT rowid, bm25(fts) FROM fts WHERE fts MATCH ? AND rowid BETWEEN ? AND ? "
            "ORDER BY bm25(fts), rowid DESC LIMIT ?",
            (query, lo, hi, limit),
        ).fetchall()
        return [(int(r[0]), float(r[1])) for r in rows]

    def having(self, query: str, positions: list[int]) -> set[int]:
        """Which of `positions` match `query`."""
        marks = ",".join("?" * len(positions))
        rows = self.conn.execute(
            f"SELECT rowid FROM fts WHERE fts MATCH ? AND rowid IN ({marks})", (query, *positions)
        ).fetchall()
        return {int(r[0]) for r in rows}

    def bodies(self, positions: list[int], limit: int = 50_000) -> dict[int, str]:
        """The searchable text of each entry (its first `limit` characters)."""
        marks = ",".join("?" * len(positions))
        rows = self.conn.execute(
            f"SELECT pos, substr(body, 1, ?) FROM docs WHERE pos IN ({marks})", (limit, *positions)
        ).fetchall()
        return {int(r[0]): str(r[1]) for r in rows}

    def count_matches(self, query: str, lo: int, hi: int) -> int:
        row = self.conn.execute(
            "SELECT count(*) FROM fts WHERE fts MATCH ? AND rowid BETWEEN ? AND ?", (query, lo, hi)
        ).fetchone()
        return int(row[0])

    def texts(self, lo: int, hi: int, literal: str | None = None) -> Iterator[tuple[int, str]]:
        """(pos, text) of searchable entries, newest first; only those containing `literal`
        (case-sensitive, checked inside SQLite) when one is given."""
        sql = "SELECT pos, body FROM docs WHERE pos BETWEEN ? AND ?"
        args: tuple[object, ...] = (lo, hi)
        if literal:
            sql += " AND instr(body, ?) > 0"
            args = (lo, hi, literal)
        for row in self.conn.execute(sql + " ORDER BY pos DESC", args):
            yield int(row[0]), str(row[1])

    def touched(self, path: str, lo: int, hi: int) -> list[int]:
        """Positions whose entry touched `path` (equal, or ending in `/path`), newest first."""
        rows = self.conn.execute(
            "SELECT pos FROM entries WHERE pos BETWEEN ? AND ? AND (instr(paths, ?) > 0 "
            "OR instr(paths, ?) > 0) ORDER BY pos DESC",
            (lo, hi, f"\n{path}\n", f"/{path}\n"),
        ).fetchall()
        return [int(r[0]) for r in rows]

    def compactions(self) -> list[tuple[int, int, str, str, str | None]]:
        rows = self.conn.execute("SELECT * FROM compactions ORDER BY pos").fetchall()
        return [(int(r[0]), int(r[1]), str(r[2]), str(r[3]), r[4]) for r in rows]
