"""Merging a fresh section with the previous summary's section of the same title.

Policies by name: sticky-goal (the first goal stays; the latest change of scope wins), union
(deduplicated, capped, oldest dropped first), union-keyed (one line per key — the text before
the first `: ` — updated in place so earlier lines keep their position for prompt caching),
union-files (per path, statuses combined, no path ever dropped: file_lines.py), rolling-turns
and rolling-transcript (append, keep the newest within a cap), replace (fresh only). Unknown
policy names behave as replace.
"""

from __future__ import annotations

from collections.abc import Callable

from shard_core.engine.compaction.excerpts import split_crumb, with_crumb
from shard_core.engine.compaction.extractors.intent import SCOPE_PREFIX
from shard_core.engine.compaction.extractors.turns import CONTINUED, MAX_TURNS
from shard_core.engine.compaction.file_lines import (
    FileStatuses,
    file_lines,
    is_compact,
    parse_compact,
    parse_detailed,
)

Policy = Callable[[list[str], list[str]], list[str]]

UNION_CAP = 30
TRANSCRIPT_MERGED_CHARS = 8000
TURNS_MARKER = "(+"


def replace_policy(previous: list[str], fresh: list[str]) -> list[str]:
    return fresh


def sticky_goal(previous: list[str], fresh: list[str]) -> list[str]:
    prev_goals = [line for line in previous if not line.startswith(SCOPE_PREFIX)]
    new_goals = [line for line in fresh if not line.startswith(SCOPE_PREFIX)]
    scopes = [line for line in previous + fresh if line.startswith(SCOPE_PREFIX)]
    return (prev_goals or new_goals) + scopes[-1:]


def union(previous: list[str], fresh: list[str]) -> list[str]:
    seen: dict[str, str] = {}
    for line in previous + fresh:
        seen.setdefault(split_crumb(line)[0].casefold(), line)
    return list(seen.values())[-UNION_CAP:]


def _key(line: str) -> str:
    text = split_crumb(line)[0]
    head, sep, _ = text.partition(": ")
    return head if sep else text


def union_keyed(previous: list[str], fresh: list[str]) -> list[str]:
    merged: dict[str, str] = {}
    for line in previous + fresh:
        merged[_key(line)] = line
    return list(merged.values())[-UNION_CAP:]


def _combine(statuses: list[str], more: list[str]) -> list[str]:
    out = list(statuses)
    for status in more:
        last = out[-1] if out else None
        if status != last and not (status == "modified" and last == "created"):
            out.append(status)
    return out[-3:]


_last_files: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]] | None = None
"""union_files' last arguments and answer: one compaction merges the same Files And Changes
lines several times (each budget check and the summary itself), hundreds of paths each."""


def union_files(previous: list[str], fresh: list[str]) -> list[str]:
    """Per path, statuses combined; every path kept (the oldest in the compact list)."""
    global _last_files
    key = (tuple(previous), tuple(fresh))
    last = _last_files
    if last is not None and last[0] == key[0] and last[1] == key[1]:
        return list(last[2])
    merged = _union_files(previous, fresh)
    _last_files = (*key, tuple(merged))
    return merged


def _union_files(previous: list[str], fresh: list[str]) -> list[str]:
    files: FileStatuses = {}
    for line in previous + fresh:
        if is_compact(line):  # hundreds of paths, most seen once: no combining for those
            for path, status in parse_compact(line):
                known = files.get(path)
                files[path] = ([status], []) if known is None else _added(known, [status], [])
            continue
        parsed = parse_detailed(line)
        if parsed is not None:
            path, statuses, indices = parsed
            files[path] = _added(files.get(path, ([], [])), statuses, indices)
    return file_lines(files)


def _added(
    known: tuple[list[str], list[int]], statuses: list[str], indices: list[int]
) -> tuple[list[str], list[int]]:
    return _combine(known[0], statuses), (known[1] + indices)[-3:]


def _omitted(lines: list[str]) -> int:
    for line in lines:
        if line.startswith(TURNS_MARKER):
            digits = line[len(TURNS_MARKER) :].split(" ", 1)[0]
            return int(digits) if digits.isdigit() else 0
    return 0


def _join_continued(previous: list[str], fresh: list[str]) -> list[str]:
    """A turn split by the previous cut continues on its own line: fold it back into one."""
    if not previous or not fresh or not fresh[0].startswith(CONTINUED):
        return previous + fresh
    head, head_indices = split_crumb(previous[-1])
    rest, rest_indices = split_crumb(fresh[0])
    more = rest.removeprefix(CONTINUED).strip().removeprefix("→").strip()
    joined = f"{head}; then {more}" if more else head
    return [*previous[:-1], with_crumb(joined, head_indices + rest_indices), *fresh[1:]]


def rolling_turns(previous: list[str], fresh: list[str]) -> list[str]:
    omitted = _omitted(previous) + _omitted(fresh)
    lines = [line for line in previous if not line.startswith(TURNS_MARKER)]
    new = [line for line in fresh if not line.startswith(TURNS_MARKER)]
    turns = _join_continued(lines, new)
    omitted += max(0, len(turns) - MAX_TURNS)
    kept = turns[-MAX_TURNS:]
    marker = [f"{TURNS_MARKER}{omitted} earlier turns; search them with recall)"] if omitted else []
    return marker + kept


def rolling_transcript(previous: list[str], fresh: list[str]) -> list[str]:
    lines = previous + fresh
    total = sum(len(line) for line in lines)
    start = 0
    while total > TRANSCRIPT_MERGED_CHARS and start < len(previous):
        total -= len(lines[start])
        start += 1
    while start < len(previous) and not lines[start].startswith("[user"):
        start += 1  # begin at a turn, never in the middle of one
    return lines[start:]


POLICIES: dict[str, Policy] = {
    "replace": replace_policy,
    "sticky-goal": sticky_goal,
    "union": union,
    "union-keyed": union_keyed,
    "union-files": union_files,
    "rolling-turns": rolling_turns,
    "rolling-transcript": rolling_transcript,
}


def merge_lines(policy: str, previous: list[str], fresh: list[str]) -> list[str]:
    return POLICIES.get(policy, replace_policy)(previous, fresh)
