"""The recall cache file: where it lives (`<log>.recall.sqlite`), its tables, how it opens.

Tables: meta (indexed bytes, first-line hash, schema version, entry count, fork links),
entries (position, id, label, byte offset and length in the log, files touched), docs (the
searchable text) with its FTS5 index, calls (tool call id → files, so results can name them)
and compactions (each compaction entry's folded range).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

SCHEMA_VERSION = "3"
SUFFIX = ".recall.sqlite"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entries(
    pos INTEGER PRIMARY KEY, id TEXT NOT NULL, kind TEXT NOT NULL, label TEXT NOT NULL,
    offset INTEGER NOT NULL, length INTEGER NOT NULL, paths TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS entries_id ON entries(id);
CREATE TABLE IF NOT EXISTS docs(pos INTEGER PRIMARY KEY, body TEXT NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
    body, content='docs', content_rowid='pos', tokenize='porter unicode61 remove_diacritics 2');
CREATE TABLE IF NOT EXISTS calls(id TEXT PRIMARY KEY, paths TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS compactions(
    pos INTEGER PRIMARY KEY, idx INTEGER NOT NULL, first_id TEXT NOT NULL,
    last_id TEXT NOT NULL, kept_id TEXT);
"""


def cache_path(log: Path) -> Path:
    return log.with_name(log.name + SUFFIX)


def first_line_hash(log: Path) -> str:
    with log.open("rb") as f:
        return hashlib.sha1(f.readline(1 << 20)).hexdigest()


def connect(db: Path | None) -> sqlite3.Connection:
    if db is not None and not db.exists():
        os.close(os.open(db, os.O_WRONLY | os.O_CREAT, 0o600))
    conn = sqlite3.connect(str(db) if db is not None else ":memory:", timeout=5.0)
    made = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'compactions'").fetchone()
    if made is None:  # executescript commits and takes a write lock: only when needed
        conn.executescript(_SCHEMA)
    return conn
