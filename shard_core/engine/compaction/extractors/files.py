"""Files And Changes: files created, modified or deleted, from tool arguments and results.

A call of a tool that declares it writes the path it names (`PathAccess(writes=True)`: write,
edit, notebook_edit, a third party's) counts only when its result succeeded (`(new file)` in the
result means created). Successful bash `rm`, `git rm`, `mv` and `git mv` count as deletions and
creations.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from operator import itemgetter

from shard_core.contracts.access import PathAccess
from shard_core.contracts.compactor import ExtractorContext
from shard_core.engine.access import access_for, path_tools
from shard_core.engine.compaction.context import call_path, facts_of, tool_index
from shard_core.engine.compaction.file_lines import file_lines
from shard_core.types import BashBlock, NormalizedBlock, ToolCallNBlock, ToolResultNBlock

MAX_CRUMBS = 3
_SEGMENTS = re.compile(r"&&|\|\||[;|\n]")
_FILE_COMMAND = re.compile(r"\b(?:rm|mv)\b")
_FILE_COMMANDS = (re.compile(r"rm(?<!\w..)(?!\w)"), re.compile(r"mv(?<!\w..)(?!\w)"))
"""`_FILE_COMMAND` as two patterns that start with their word: the regex engine then jumps from
one occurrence of it to the next, where `\b` first made it try every position (7 ms over a
28k-entry session's commands, 0.2 ms so)."""
_GLOB = re.compile(r"[*?\[{$`]")
FileChange = tuple[str, str, int]
"""(path, status, entry index) of one change."""


class FileLog:
    """Per path, in order of first appearance: the status history and the entries behind it."""

    def __init__(self) -> None:
        self.statuses: dict[str, list[str]] = {}
        self.indices: dict[str, list[int]] = {}

    def add(self, path: str, status: str, index: int) -> None:
        history = self.statuses.get(path)
        if history is None:  # (most paths are seen before: no new lists for them)
            history = self.statuses[path] = []
            crumbs = self.indices[path] = []
        else:
            crumbs = self.indices[path]
        last = history[-1] if history else None
        if status != last and not (status == "modified" and last == "created"):
            history.append(status)
            if len(history) > 3:
                del history[0]
        crumbs.append(index)
        if len(crumbs) > MAX_CRUMBS:
            del crumbs[0]

    def lines(self) -> list[str]:
        """Every path: the newest on lines of their own, the older in one compact list."""
        return file_lines({p: (self.statuses[p], self.indices[p]) for p in self.statuses})


def shell_file_ops(command: str) -> list[tuple[str, str]]:
    """(path, status) for the rm / mv commands in a shell line; globs and variables skipped."""
    ops: list[tuple[str, str]] = []
    if not _FILE_COMMAND.search(command):
        return ops  # shlex is slow; most commands move nothing
    for segment in _SEGMENTS.split(command):
        try:
            argv = shlex.split(segment)
        except ValueError:
            continue
        if argv[:2] in (["git", "rm"], ["git", "mv"]):
            argv = argv[1:]
        if not argv or argv[0] not in ("rm", "mv"):
            continue
        args = [a for a in argv[1:] if not a.startswith("-") and not _GLOB.search(a)]
        if argv[0] == "rm":
            ops += [(a.removeprefix("./"), "deleted") for a in args]
        elif len(args) == 2:
            ops += [
                (args[0].removeprefix("./"), "deleted"),
                (args[1].removeprefix("./"), "created"),
            ]
    return ops


def changing_tools() -> frozenset[str]:
    """The tools whose calls change the file their path argument names (as declared)."""
    return path_tools(writes=True)


def changed_path(call: ToolCallNBlock) -> str | None:
    """The path a changing call names: its declared argument, else the usual keys."""
    access = access_for(call.name)
    value = call.args.get(access.arg) if isinstance(access, PathAccess) else None
    if isinstance(value, str) and value:
        return value.removeprefix("./")
    return call_path(call)


def file_change(call: ToolCallNBlock, result: ToolResultNBlock | None) -> FileChange | None:
    """(path, created or modified, the result's entry index) of a changing call that
    succeeded; None for one that failed, has no result or names no path."""
    if result is None or result.is_error or (path := changed_path(call)) is None:
        return None
    created = "(new file)" in result.text
    return path, "created" if created else "modified", result.entry_index


class FilesAndChanges:
    name = "files"
    title = "Files And Changes"
    merge = "union-files"

    def __call__(self, blocks: Sequence[NormalizedBlock], ctx: ExtractorContext) -> list[str]:
        tools = tool_index(blocks, ctx)
        moving = tools.commands().any_of((), _FILE_COMMANDS)  # most commands move nothing
        moves: list[tuple[int, BashBlock | ToolCallNBlock]] = [
            (i, b)
            for i, hit in zip(tools.kinds["bash"], moving, strict=True)
            if hit and (b := tools.blocks[i]).kind == "bash" and b.exit_code == 0
        ]
        found: list[tuple[int, BashBlock | ToolCallNBlock]] = [
            *moves,
            *tools.calls_named(changing_tools()),
        ]
        if moves:
            found.sort(key=itemgetter(0))  # log order: the changes as they were made
        log = FileLog()
        results, facts = tools.results, facts_of(ctx)
        for _, block in found:
            if block.kind == "bash":
                for path, status in shell_file_ops(block.command):
                    log.add(path, status, block.entry_index)
            elif (change := facts.of(file_change, block, results.get(block.id))) is not None:
                log.add(*change)
        return log.lines()
