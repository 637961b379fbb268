"""Files And Changes lines: a detailed line for each of the newest files, every older one in a
compact path list, so no changed path ever leaves the summary (fit folds, merge never caps).

    also changed: src/a.py, docs/b.md (created), old/c.py (deleted)
    src/d.py: modified, deleted (recall: expand=[7, 19])

The compact line comes first (the files are listed oldest first) and names each path with its
last status, `modified` left unsaid. `fold_oldest` moves the oldest detailed line into it: what
fit does when the summary is over its budget, where it used to drop that file.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from shard_core.engine.compaction.excerpts import split_crumb, with_crumb

DETAILED = 40
"""Files (the newest) that keep a line of their own with statuses and breadcrumbs."""
COMPACT_PREFIX = "also changed: "
_DEFAULT = "modified"
_SEP = ", "

FileStatuses = dict[str, tuple[list[str], list[int]]]
"""Path → (its statuses, oldest first; the entry indices behind them), in listing order."""


def is_compact(line: str) -> bool:
    return line.startswith(COMPACT_PREFIX)


def compact_line(items: Iterable[tuple[str, str]]) -> str:
    """The compact list of (path, last status) pairs."""
    shown = [p if s == _DEFAULT else f"{p} ({s})" for p, s in items]
    return COMPACT_PREFIX + _SEP.join(shown)


def parse_compact(line: str) -> list[tuple[str, str]]:
    """(path, last status) of each path a compact line lists."""
    out: list[tuple[str, str]] = []
    for item in line[len(COMPACT_PREFIX) :].split(_SEP):
        path, status = item, _DEFAULT
        if item.endswith(")") and " (" in item:
            path, _, rest = item.rpartition(" (")
            status = rest[:-1]
        if path:
            out.append((path, status))
    return out


def parse_detailed(line: str) -> tuple[str, list[str], list[int]] | None:
    """(path, statuses, entry indices) of a detailed line; None for a line of another shape."""
    text, indices = split_crumb(line)
    path, sep, status_text = text.rpartition(": ")
    if not sep or not path:
        return None
    return path, [s.strip() for s in status_text.split(",") if s.strip()], indices


def detailed_line(path: str, statuses: Sequence[str], indices: Sequence[int]) -> str:
    return with_crumb(f"{path}: {', '.join(statuses)}", list(indices))


def file_lines(files: FileStatuses, detailed: int = DETAILED) -> list[str]:
    """Every file of `files`: the last `detailed` on lines of their own, the rest compact."""
    paths = list(files)
    older, newest = paths[: max(0, len(paths) - detailed)], paths[-detailed:] if detailed else []
    out = [compact_line((p, (files[p][0] or [_DEFAULT])[-1]) for p in older)] if older else []
    return out + [detailed_line(p, *files[p]) for p in newest]


def folded_length(lines: Sequence[str]) -> int:
    """The length of the section's lines with every file in the compact list (what fit
    cannot shrink it below)."""
    compact = lines[0] if lines and is_compact(lines[0]) else None
    size = len(compact) if compact is not None else len(COMPACT_PREFIX) - len(_SEP)
    for line in lines[1:] if compact is not None else lines:
        parsed = parse_detailed(line)
        if parsed is not None:
            status = (parsed[1] or [_DEFAULT])[-1]
            size += len(_SEP) + len(parsed[0]) + (0 if status == _DEFAULT else len(status) + 3)
    return size


def fold_oldest(lines: tuple[str, ...], count: int = 1) -> tuple[str, ...] | None:
    """The section with its `count` oldest detailed lines moved into the compact list (the
    list grows at its end: nothing already in it is read again); None when every file is in
    the compact list already (the section keeps what it has)."""
    compact = lines[0] if lines and is_compact(lines[0]) else None
    detailed = lines[1:] if compact is not None else lines
    if not detailed:
        return None
    moved: list[tuple[str, str]] = []
    for line in detailed[:count]:
        parsed = parse_detailed(line)
        if parsed is not None:
            moved.append((parsed[0], (parsed[1] or [_DEFAULT])[-1]))
    rest = detailed[count:]
    if not moved:
        return (compact, *rest) if compact is not None else rest
    added = compact_line(moved)
    joined = added if compact is None else compact + _SEP + added[len(COMPACT_PREFIX) :]
    return (joined, *rest)
