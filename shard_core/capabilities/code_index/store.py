"""Where an index lives between sessions: one JSON file per workspace under SHARD_HOME.

    SHARD_HOME/code-index/<sha256(workspace)[:16]>/index.json

A file that is missing, unreadable or from another format version is an empty index (the next
refresh parses everything again), never an error.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from shard_core.capabilities.code_index.parse import (
    FileSymbols,
    SymbolsRow,
    symbols_from_row,
    symbols_row,
)

FORMAT = 1


@dataclass
class IndexedFile:
    mtime_ns: int
    size: int
    digest: str
    symbols: FileSymbols


def index_path(home: Path, root: Path) -> Path:
    key = hashlib.sha256(str(root).encode("utf-8")).hexdigest()[:16]
    return home / "code-index" / key / "index.json"


def load(path: Path, root: Path) -> dict[str, IndexedFile]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    raw = cast(dict[str, Any], data)
    if raw.get("format") != FORMAT or raw.get("root") != str(root):
        return {}
    try:
        return {rel: _entry(item) for rel, item in raw["files"].items()}
    except (KeyError, TypeError, ValueError):
        return {}


def save(path: Path, root: Path, files: dict[str, IndexedFile]) -> None:
    """Write the whole index atomically (a reader never sees half a file)."""
    payload = {
        "format": FORMAT,
        "root": str(root),
        "files": {rel: _row(entry) for rel, entry in files.items()},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".index-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:  # dumps: json.dump's encoder is Python
            out.write(json.dumps(payload, separators=(",", ":")))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _row(entry: IndexedFile) -> list[Any]:
    return [entry.mtime_ns, entry.size, entry.digest, *symbols_row(entry.symbols)]


def _entry(item: list[Any]) -> IndexedFile:
    mtime_ns, size, digest, language, defs, refs = item
    row: SymbolsRow = (language, defs, refs)
    return IndexedFile(int(mtime_ns), int(size), str(digest), symbols_from_row(row))
