"""Commits: what git reported in bash output — `[main abc1234] msg` lines from commits made in
the session, and `git log --oneline` lines the agent looked at."""

from __future__ import annotations

import re
from collections.abc import Sequence

from shard_core.contracts.compactor import ExtractorContext
from shard_core.engine.compaction.context import facts_of, tool_index
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


Commit = tuple[str, str, str, bool]
"""(hash as git printed it, message, where it was seen — the branch it was made on or `seen in
git log`, made here?)"""


def commits_of(block: BashBlock, _: None) -> list[Commit]:
    return commits_in(block)


def commits_in(block: BashBlock) -> list[Commit]:
    """The commits named in one bash block's output."""
    found: list[Commit] = []
    for match in _MADE.finditer(block.output):
        found.append((match["hash"], match["msg"], match["branch"], True))
    if _ONELINE_CMD.search(block.command):
        for line in block.output.splitlines()[:MAX_LOG_LINES]:
            match = _LOG_LINE.match(line)
            if match is not None:
                found.append((match["hash"], match["msg"], "seen in git log", False))
    return found


def commit_line(short: str, message: str, where: str, block: BashBlock) -> str:
    return with_crumb(f"{short}: {clip(message, MESSAGE_CHARS)} ({where})", [block.entry_index])


class Commits:
    name = "commits"
    title = "Commits"
    merge = "union-keyed"

    def __call__(self, blocks: Sequence[NormalizedBlock], ctx: ExtractorContext) -> list[str]:
        # by the first 7 digits (git log may print fewer than the commit did); shown as the
        # commit printed it: the string a person or a later command names it by
        commits: dict[str, tuple[str, str, str, BashBlock]] = {}
        facts = facts_of(ctx)
        tools = tool_index(blocks, ctx)
        for block, git in zip(tools.bash(), tools.commands().any_of(("git",)), strict=True):
            if not git:
                continue
            for sha, message, where, made in facts.of(commits_of, block, None):
                if sha[:7] not in commits or made:
                    commits[sha[:7]] = (sha, message, where, block)
        shown = list(commits.values())[-MAX_COMMITS:]  # only these lines are ever made
        return [commit_line(*seen) for seen in shown]
