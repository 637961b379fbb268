"""Commits: what git reported in bash output — `[main abc1234] msg` lines from commits made in
the session, and `git log --oneline` lines the agent looked at."""

from __future__ import annotations

import re
from collections.abc import Sequence

from shard_core.contracts.compactor import ExtractorContext
from shard_core.engine.compaction.context import facts_of
from shard_core.engine.compaction.excerpts import clip, with_crumb
from shard_core.types import BashBlock, NormalizedBlock

_MADE = re.compile(
    r"^\[(?P<branch>[^\]\s]+)(?: \(root-commit\))? (?P<hash>[0-9a-f]{7,40})\] (?P<msg>.+)$",
    re.MULTILINE,
)
_ONELINE_CMD = re.compile(r"\bgit\s+(?:-C\s+\S+\s+)?log\b[^|;&]*(?:--oneline|--pretty=oneline)")
_LOG_LINE = re.compile(r"^[*|\\/ ]*(?P<hash>[0-9a-f]{7,40}) (?:\((?P<refs>[^)]*)\) )?(?P<msg>.+)$")
MAX_COMMITS = 20
MAX_LOG_LINES = 10
MESSAGE_CHARS = 100


def commits_of(block: BashBlock, _: None) -> list[tuple[str, str, bool]]:
    return commits_in(block)


def commits_in(block: BashBlock) -> list[tuple[str, str, bool]]:
    """(short hash, line, made here?) for each commit named in one bash block's output."""
    found: list[tuple[str, str, bool]] = []
    for match in _MADE.finditer(block.output):
        short = match["hash"][:7]
        text = f"{short}: {clip(match['msg'], MESSAGE_CHARS)} ({match['branch']})"
        found.append((short, with_crumb(text, [block.entry_index]), True))
    if _ONELINE_CMD.search(block.command):
        for line in block.output.splitlines()[:MAX_LOG_LINES]:
            match = _LOG_LINE.match(line)
            if match is not None:
                short = match["hash"][:7]
                text = f"{short}: {clip(match['msg'], MESSAGE_CHARS)} (seen in git log)"
                found.append((short, with_crumb(text, [block.entry_index]), False))
    return found


class Commits:
    name = "commits"
    title = "Commits"
    merge = "union-keyed"

    def __call__(self, blocks: Sequence[NormalizedBlock], ctx: ExtractorContext) -> list[str]:
        commits: dict[str, str] = {}
        facts = facts_of(ctx)
        for block in blocks:
            if block.kind != "bash" or "git" not in block.command:
                continue
            for short, line, made in facts.of(commits_of, block, None):
                if short not in commits or made:
                    commits[short] = line
        return list(commits.values())[-MAX_COMMITS:]
