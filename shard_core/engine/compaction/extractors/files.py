"""Files And Changes: files created, modified or deleted, from tool arguments and results.

write/edit count only when their result succeeded (`(new file)` in a write result means
created). Successful bash `rm`, `git rm`, `mv` and `git mv` count as deletions and creations.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from operator import itemgetter

from shard_core.contracts.compactor import ExtractorContext
from shard_core.engine.compaction.context import call_path, tool_index
from shard_core.engine.compaction.excerpts import with_crumb
from shard_core.engine.compaction.gates import any_of
from shard_core.types import BashBlock, NormalizedBlock, ToolCallNBlock

WRITE_TOOLS = frozenset({"write", "Write", "write_file", "create_file"})
EDIT_TOOLS = frozenset({"edit", "Edit", "MultiEdit", "edit_file", "str_replace"})
MAX_FILES = 40
MAX_CRUMBS = 3
_SEGMENTS = re.compile(r"&&|\|\||[;|\n]")
_FILE_COMMAND = re.compile(r"\b(?:rm|mv)\b")
_GLOB = re.compile(r"[*?\[{$`]")


class FileLog:
    """Per path, in order of first appearance: the status history and the entries behind it."""

    def __init__(self) -> None:
        self.statuses: dict[str, list[str]] = {}
        self.indices: dict[str, list[int]] = {}

    def add(self, path: str, status: str, index: int) -> None:
        history = self.statuses.setdefault(path, [])
        last = history[-1] if history else None
        if status != last and not (status == "modified" and last == "created"):
            history.append(status)
            del history[:-3]
        crumbs = self.indices.setdefault(path, [])
        crumbs.append(index)
        del crumbs[:-MAX_CRUMBS]

    def lines(self) -> list[str]:
        paths = list(self.statuses)[-MAX_FILES:]
        return [with_crumb(f"{p}: {', '.join(self.statuses[p])}", self.indices[p]) for p in paths]


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


class FilesAndChanges:
    name = "files"
    title = "Files And Changes"
    merge = "union-files"

    def __call__(self, blocks: Sequence[NormalizedBlock], ctx: ExtractorContext) -> list[str]:
        tools = tool_index(blocks, ctx)
        runs = [(i, b) for i, b in tools.at("bash") if b.kind == "bash" and b.exit_code == 0]
        moving = any_of([b.command for _, b in runs], (), (_FILE_COMMAND,), lower=False)
        found: list[tuple[int, BashBlock | ToolCallNBlock]] = [
            (i, b) for (i, b), hit in zip(runs, moving, strict=True) if hit and b.kind == "bash"
        ]
        found += tools.calls_named(WRITE_TOOLS | EDIT_TOOLS)
        found.sort(key=itemgetter(0))  # log order: the changes as they were made
        log = FileLog()
        for _, block in found:
            if block.kind == "bash":
                for path, status in shell_file_ops(block.command):
                    log.add(path, status, block.entry_index)
                continue
            result = tools.result_of(block)
            path = call_path(block)
            if result is None or result.is_error or path is None:
                continue
            created = block.name in WRITE_TOOLS and "(new file)" in result.text
            log.add(path, "created" if created else "modified", result.entry_index)
        return log.lines()
