"""The pure-Python search engine, used when no `rg` binary is available: re + ignore rules."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from shard_core.tools.encoding import decode_text, split_lines
from shard_core.tools.ignore import walk_files
from shard_core.tools.search import Collector, SearchLine, SearchOutcome, SearchQuery

MAX_FILE_BYTES = 16 * 1024 * 1024


def search_with_python(query: SearchQuery) -> SearchOutcome:
    """Blocking; run it in a thread. Mirrors the rg flags the ripgrep engine passes."""
    flags = re.IGNORECASE if query.ignore_case else 0
    source = re.escape(query.pattern) if query.literal else query.pattern
    try:
        regex = re.compile(source, flags)
    except re.error as exc:
        return SearchOutcome(error=f"invalid regex {query.pattern!r}: {exc}")
    collector = Collector(query)
    for path in _candidates(query):
        lines = _text_lines(path)
        if lines is None:
            continue
        for line in _hits(path, lines, regex, query.context):
            if not collector.add(line):
                return collector.finish()
    return collector.finish()


def _candidates(query: SearchQuery) -> Iterator[Path]:
    if query.target.is_file():
        yield query.target
        return
    from pathspec import GitIgnoreSpec  # with the first search, not with the tool's import

    only = GitIgnoreSpec.from_lines([query.glob]) if query.glob else None
    entries = [e for e in walk_files(query.target, query.root) if not e.is_symlink]
    # Per-component order, as `rg --sort path` walks: "a/b.py" comes before "a.py".
    for entry in sorted(entries, key=lambda e: e.path.relative_to(query.target).parts):
        relative = entry.path.relative_to(query.target).as_posix()
        if only is None or only.match_file(relative):
            yield entry.path


def _text_lines(path: Path) -> list[str] | None:
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return None
        decoded = decode_text(path.read_bytes())
    except OSError:
        return None
    return split_lines(decoded.text) if decoded else None


def _hits(
    path: Path, lines: list[str], regex: re.Pattern[str], context: int
) -> Iterator[SearchLine]:
    """Matching lines of one file, each with up to `context` lines around it, in order, once."""
    matched = [i for i, line in enumerate(lines) if regex.search(line)]
    wanted: set[int] = set()
    for i in matched:
        wanted.update(range(max(0, i - context), min(len(lines), i + context + 1)))
    hits = set(matched)
    for i in sorted(wanted):
        yield SearchLine(path, i + 1, lines[i], i in hits)
