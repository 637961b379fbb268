"""Progress: done / remaining / next action / open failures — from the latest plan checkpoint on
the branch and from tool outcomes (the last test run, the failures still open).

The section is replaced at each compaction, but what the folded entries cannot say again is
carried from the previous summary: the last test run when none ran since, and the request in
progress when a turn goes on across compactions (its prompt was folded by an earlier one)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from shard_core.contracts.compactor import ExtractorContext
from shard_core.engine.compaction.context import BlockIndex, facts_of, plan_of, tool_index
from shard_core.engine.compaction.excerpts import clip, with_crumb
from shard_core.engine.compaction.extractors.intent import is_substantive
from shard_core.engine.compaction.extractors.outstanding import Finding, family, tail_findings
from shard_core.types import AssistantBlock, BashBlock, NormalizedBlock, PlanCheckpoint

MAX_STEPS = 8
STEP_CHARS = 140
TITLE = "Progress"
LAST_TEST = "last test run: "
LAST_FAILURE = "last failing test run: "
FAILING = "failing: "
_FAILED = re.compile(
    r"^(?:(?:FAILED|ERROR) (\S+)"  # pytest
    r"|[ \t]*\u2715 (.+?)(?: \(\d+ ?m?s\))?[ \t]*$"  # jest, vitest
    r"|test (\S+) \.\.\. FAILED$)",  # cargo
    re.MULTILINE,
)
"""A failed test's name as the runner prints it; one group each."""
IN_PROGRESS = "in progress: "


def _plan_lines(plan: PlanCheckpoint) -> list[str]:
    done = [s.text for s in plan.steps if s.done]
    remaining = [s.text for s in plan.steps if not s.done]
    lines = [f"plan: {len(done)}/{len(plan.steps)} steps done"]
    lines += [f"done: {clip(t, STEP_CHARS)}" for t in done[-MAX_STEPS:]]
    lines += [f"remaining: {clip(t, STEP_CHARS)}" for t in remaining[:MAX_STEPS]]
    return lines


def _last_test_run(runs: Sequence[BashBlock]) -> str | None:
    for block in reversed(runs):
        if family(block.command) == "tests":
            code = block.exit_code
            outcome = "passed" if code == 0 else f"failed (exit {code})"
            return with_crumb(
                f"{LAST_TEST}{clip(block.command, 80)} → {outcome}", [block.entry_index]
            )
    return None


def _failed_tests(output: str) -> list[str]:
    """The failed tests' names in a run's output, in order."""
    names: list[str] = []
    for match in _FAILED.finditer(output):
        names.append(next(name for name in match.groups() if name))
    return names


def _last_failure(runs: Sequence[BashBlock]) -> str | None:
    """The latest test run that failed and the tests it names (up to two): what the last
    runs were about. When that run is the last one, only the test names (the line above has
    its command); None when it names none."""
    last = True
    for block in reversed(runs):
        if family(block.command) != "tests":
            continue
        if block.exit_code == 0:
            last = False
            continue
        failed = _failed_tests(block.output)
        more = f" +{len(failed) - 2}" if len(failed) > 2 else ""
        named = clip(", ".join(failed[:2]) + more, 200)
        if last:
            return with_crumb(f"{FAILING}{named}", [block.entry_index]) if failed else None
        said = f": {named}" if failed else ""
        text = f"{LAST_FAILURE}{clip(block.command, 80)} → failed{said}"
        return with_crumb(text, [block.entry_index])
    return None


def _carried(previous: str | None, prefix: str) -> str | None:
    """The previous summary's Progress line starting with `prefix`, if any."""
    if previous is None:
        return None
    head = f"\n## {TITLE}\n"
    at = previous.find(head)
    if at == -1:
        return None
    for line in previous[at + len(head) :].splitlines():
        if not line.startswith("- "):
            return None  # the section ended
        if line.startswith(prefix, 2):
            return line[2:]
    return None


def _next_action(
    plan: PlanCheckpoint | None,
    open_failures: list[Finding],
    tools: BlockIndex,
    previous: str | None,
) -> str | None:
    if open_failures:
        first = open_failures[0]
        return with_crumb(f"next action: fix [{first.tag}] {first.text}", [first.index])
    remaining = [s.text for s in plan.steps if not s.done] if plan is not None else []
    if remaining:
        return f"next action: {clip(remaining[0], STEP_CHARS)}"
    blocks = tools.blocks
    if blocks and isinstance(blocks[-1], AssistantBlock):
        return None  # the last turn ended with an answer: nothing is half done
    for block in reversed(tools.users()):
        if is_substantive(block.text):
            text = f"{IN_PROGRESS}{clip(block.text, 200)}"
            return with_crumb(text, [block.entry_index])
    return _carried(previous, IN_PROGRESS)  # the turn goes on; its prompt was folded earlier


class Progress:
    name = "progress"
    title = TITLE
    merge = "replace"

    def __call__(self, blocks: Sequence[NormalizedBlock], ctx: ExtractorContext) -> list[str]:
        plan = plan_of(ctx)
        lines = _plan_lines(plan) if plan is not None and plan.steps else []
        tools = tool_index(blocks, ctx)
        tested = _last_test_run(tools.bash()) or _carried(ctx.previous_summary, LAST_TEST)
        if tested is not None:
            lines.append(tested)
            failure = _last_failure(tools.bash()) or _carried(ctx.previous_summary, LAST_FAILURE)
            if failure is not None:
                lines.append(failure)
        findings = tools.derived(tail_findings, facts_of(ctx))
        open_failures = [f for f in findings if f.level == "ERROR" and not f.resolved]
        if open_failures:
            lines.append(f"open failures: {len(open_failures)} (see Outstanding Context)")
        action = _next_action(plan, open_failures, tools, ctx.previous_summary)
        if action is not None:
            lines.append(action)
        return lines
