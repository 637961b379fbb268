"""HomeIndex: one FTS5 cache over every session log under SHARD_HOME, so a search across all
sessions is one ranked query, not a parse or an index open per session.

Logs are found where the session store keeps them — `sessions/*.jsonl` and
`agents/*/sessions/*.jsonl` under the root — and directly in the root (a plain folder of logs).
The JSONL files stay the source of truth; the cache (`<root>/.recall-home.sqlite`) is
rebuildable. Per log it remembers how many bytes it indexed and a hash of the first line, so a
search first indexes only what was appended since (a log that shrank or whose first line
changed is indexed again from the start, a log that is gone is dropped). Entries are numbered
by their position in their own file, like a session's own recall cache numbers them.

Ranking (bm25) costs about 2 µs per matching entry, so a word in a fifth of a big home's entries
would make a search slower than `rg` over the same files (#5's B8 goal is <= 1.0x). When a query
matches more than `RANK_CAP` entries, only the `RANK_CAP` newest matches are ranked — the
highest rowids: appends are indexed after what was there, and a cold build indexes logs oldest
modified first — and the result says so (`HomeHits.note`: "ranked the 2,000 newest of 10,201
matches"). Counting the matches and finding the newest ones is cheap (no ranking involved).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from shard_core.engine.recall.documents import document
from shard_core.engine.recall.index import ENTRY
from shard_core.engine.recall.schema import first_line_hash
from shard_core.engine.recall.search import fts_terms, highlight

log_ = logging.getLogger("shard.recall")

HOME_CACHE = ".recall-home.sqlite"
HOME_VERSION = "2"
RANK_CAP = 2_000
"""More matches than this: rank only this many, the newest (see the module docstring)."""
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files(
    name TEXT PRIMARY KEY, bytes INTEGER NOT NULL, head TEXT NOT NULL, count INTEGER NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
    body, file UNINDEXED, pos UNINDEXED, id UNINDEXED, label UNINDEXED,
    tokenize='porter unicode61 remove_diacritics 2');
"""


@dataclass(frozen=True)
class HomeHit:
    """One search result: which session log (and its path under the root), the entry's
    position and id there, a snippet."""

    session: str
    path: str
    pos: int
    entry_id: str
    label: str
    snippet: str
    rank: float


class HomeHits(list[HomeHit]):
    """The hits, best first, plus how many entries matched and how many of them were ranked
    (fewer than matched only when more than the cap matched: the newest ones)."""

    def __init__(self, hits: list[HomeHit], matches: int, ranked: int) -> None:
        super().__init__(hits)
        self.matches = matches
        self.ranked = ranked

    @property
    def note(self) -> str:
        """'' when every match was ranked, else e.g. 'ranked the 2,000 newest of 10,201
        matches'."""
        if self.ranked >= self.matches:
            return ""
        return f"ranked the {self.ranked:,} newest of {self.matches:,} matches"


class HomeIndex:
    """The cache of one SHARD_HOME (or folder of logs). Open with `HomeIndex.open(root)`."""

    def __init__(self, root: Path, conn: sqlite3.Connection) -> None:
        self.root = root
        self.conn = conn

    @classmethod
    def open(cls, root: Path) -> HomeIndex:
        """The cache, created when missing and rebuilt when unusable (in memory when the root
        is read-only). Call `update` (or `search`, which does) to bring it up to date."""
        db = root / HOME_CACHE
        for _ in range(2):
            try:
                return cls(root, _connect(db))
            except sqlite3.DatabaseError:
                log_.warning("recall home cache %s unusable; rebuilding", db)
                with contextlib.suppress(OSError):
                    db.unlink()
            except OSError:
                break
        return cls(root, _connect(None))

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> HomeIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def update(self) -> int:
        """Index what every log gained since the last update; returns how many entries."""
        sizes = _logs(self.root)
        known = {r[0]: int(r[1]) for r in self.conn.execute("SELECT name, bytes FROM files")}
        if known == sizes:
            return 0  # the common case: nothing appended anywhere, one query and a few stats
        added = 0
        with self.conn:
            self.conn.execute("BEGIN IMMEDIATE")  # one indexer at a time; re-read under the lock
            rows = self.conn.execute("SELECT name, bytes, head, count FROM files").fetchall()
            state = {str(r[0]): (int(r[1]), str(r[2]), int(r[3])) for r in rows}
            for name in sorted(set(state) - set(sizes)):
                self._drop(name)
            for name in sorted(sizes, key=lambda n: (_mtime(self.root / n), n)):
                if state.get(name, (-1,))[0] != sizes[name]:  # oldest first: newest, highest
                    added += self._index_file(name, sizes[name], state.get(name))
        return added

    def _drop(self, name: str) -> None:
        self.conn.execute("DELETE FROM fts WHERE file = ?", (name,))
        self.conn.execute("DELETE FROM files WHERE name = ?", (name,))

    def _index_file(self, name: str, size: int, known: tuple[int, str, int] | None) -> int:
        path = self.root / name
        try:
            head = first_line_hash(path)
            done, count = (known[0], known[2]) if known and known[1] == head else (0, 0)
            if size < done or (known is not None and done == 0):
                self._drop(name)
                done, count = 0, 0
            with path.open("rb") as f:
                f.seek(done)
                data = f.read(max(0, size - done))
        except OSError:
            return 0  # gone or unreadable since the listing: the next update sees it again
        end = data.rfind(b"\n") + 1  # a torn last line waits for its newline
        rows: list[tuple[str, str, int, str, str]] = []
        offset = 0
        while offset < end:
            stop = data.index(b"\n", offset)
            line = data[offset:stop]
            offset = stop + 1
            if not line.strip():
                continue
            try:
                entry = ENTRY.validate_json(line)
            except ValidationError:
                continue  # damaged lines are skipped, like the session store skips them
            doc = document(entry)
            if doc.searchable:
                rows.append((doc.text, name, count, entry.id, doc.label))
            count += 1
        self.conn.executemany("INSERT INTO fts VALUES (?, ?, ?, ?, ?)", rows)
        self.conn.execute(
            "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?)", (name, done + end, head, count)
        )
        return len(rows)

    def search(self, query: str, limit: int = 10, cap: int = RANK_CAP) -> HomeHits:
        """The best `limit` entries having every word of `query` (bm25, porter-stemmed), across
        all sessions; the cache is brought up to date first. When more than `cap` entries
        match, only the `cap` newest are ranked, and the result's `note` says so."""
        terms = fts_terms(query)
        if not terms:
            return HomeHits([], 0, 0)
        cap = max(1, cap)
        self.update()
        match = " ".join(terms)
        row = self.conn.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (match,)).fetchone()
        matches = int(row[0])
        floor = 0  # rank the rows from this rowid on
        if matches > cap:
            row = self.conn.execute(  # the cap-th newest match: a walk down the rowids, no bm25
                "SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?",
                (match, max(0, cap - 1)),
            ).fetchone()
            floor = int(row[0])
        best = self.conn.execute(  # rank first, read the few winners' text after
            "SELECT rowid, rank FROM fts WHERE fts MATCH ? AND rowid >= ? "
            "ORDER BY rank, rowid LIMIT ?",
            (match, floor, limit),
        ).fetchall()
        ranks = {int(r[0]): float(r[1]) for r in best}
        marks = ",".join("?" * len(ranks))
        rows = self.conn.execute(
            f"SELECT rowid, file, pos, id, label, substr(body, 1, 50000) FROM fts "
            f"WHERE rowid IN ({marks})",
            list(ranks),
        ).fetchall()
        found = {int(r[0]): r for r in rows}
        words = [t.strip('"') for t in terms]
        hits: list[HomeHit] = []
        for rowid, rank in ranks.items():
            _, file, pos, entry_id, label, body = found[rowid]
            session = Path(str(file)).name.removesuffix(".jsonl")
            snippet = highlight(str(body), words)
            hit = HomeHit(session, str(file), int(pos), str(entry_id), str(label), snippet, rank)
            hits.append(hit)
        return HomeHits(hits, matches, min(matches, cap))


def search_home(root: Path, query: str, limit: int = 10, cap: int = RANK_CAP) -> HomeHits:
    """Open the cache of `root` (a SHARD_HOME), search every session log under it, close.
    More than `cap` matches: the `cap` newest are ranked (`HomeHits.note` says so)."""
    with HomeIndex.open(root) as index:
        return index.search(query, limit, cap)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _logs(root: Path) -> dict[str, int]:
    """Path under the root → size of every session log (a few scandirs, no opens)."""
    folders = [root, root / "sessions"]
    with contextlib.suppress(OSError), os.scandir(root / "agents") as agents:
        folders += [Path(a.path) / "sessions" for a in agents if a.is_dir()]
    sizes: dict[str, int] = {}
    for folder in folders:
        with contextlib.suppress(OSError), os.scandir(folder) as found:
            for item in found:
                if item.name.endswith(".jsonl") and item.is_file():
                    sizes[Path(item.path).relative_to(root).as_posix()] = item.stat().st_size
    return sizes


def _connect(db: Path | None) -> sqlite3.Connection:
    if db is not None and not db.exists():
        os.close(os.open(db, os.O_WRONLY | os.O_CREAT, 0o600))
    conn = sqlite3.connect(str(db) if db is not None else ":memory:", timeout=5.0)
    try:
        made = conn.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
    except sqlite3.OperationalError:
        made = None  # no meta table yet
    if made is None or made[0] != HOME_VERSION:
        conn.executescript(
            "DROP TABLE IF EXISTS meta; DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS fts;"
            + _SCHEMA
        )
        conn.execute("INSERT INTO meta VALUES ('version', ?)", (HOME_VERSION,))
        conn.commit()
    return conn
