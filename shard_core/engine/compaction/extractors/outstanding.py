"""Outstanding Context: the failure state at the end of the folded span, priority-tagged.

The last ~25 blocks are classified into `[ERROR] [bash:exit 1] …`, `[ERROR] [tests] …`,
`[WARN] [tests] …`, `[INFO] [no matches] …` findings. A finding is retagged `[RESOLVED]` when
a later block fixed it: the same command (or one of its family: tests, types, lint, build)
later exited 0, or a file the finding names was later written or edited successfully.
Repeats of one failure collapse into the latest.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from shard_core.contracts.codeintel import DIAGNOSTICS_HEADING
from shard_core.contracts.compactor import ExtractorContext
from shard_core.engine.compaction.context import (
    NO_FACTS,
    Facts,
    ToolIndex,
    facts_of,
    tool_index,
)
from shard_core.engine.compaction.excerpts import clip, squash, with_crumb
from shard_core.engine.compaction.extractors.files import changed_path, changing_tools
from shard_core.types import BashBlock, NormalizedBlock, ToolResultNBlock, UserBlock

TAIL_BLOCKS = 25
MAX_FINDINGS = 10
_FAMILIES = (
    ("tests", r"\b(?:pytest|py\.test|unittest|nose2|tox|nox|jest|vitest|mocha|rspec|phpunit"
     r"|ctest|go test|cargo test|(?:npm|pnpm|yarn|bun)(?: run)? test|make (?:test|check))\b"),
    ("types", r"\b(?:tsc|mypy|pyright|pytype)\b"),
    ("lint", r"\b(?:ruff|eslint|flake8|pylint|clippy|black --check|prettier --check"
     r"|lint-imports)\b"),
    ("build", r"\b(?:make|cargo build|go build|(?:npm|pnpm|yarn) run build|gcc|g\+\+|javac|mvn)\b"),
)  # fmt: skip
_FAMILY = re.compile("|".join(f"(?P<{name}>{pattern})" for name, pattern in _FAMILIES))
_SEARCH = re.compile(r"^\s*(?:grep|rg|ag|ack|find|fd)\b")
_KEY_LINES = (
    re.compile(r"^E\s{2,}\S"),
    re.compile(r"\b\w*(?:Error|Exception)\b(?!\s*\(most recent)"),
    re.compile(
        r"FAILED\b|\bFAIL[: ]|\berror(?:\[|:)|\bfatal:|\bpanic:|No such file|not found"
        r"|Permission denied|\bfailed\b|\berror\b",
        re.IGNORECASE,
    ),
)
_SCAN_CHARS = 20_000
_RULE = re.compile(r"^[\s=_*-]{3,}|[\s=_*-]{3,}$")
_WARNINGS = re.compile(r"\b(\d+) warnings?\b")
_PATHS = re.compile(
    r"File \"([^\"]+)\", line \d+|^([\w./-]+\.\w+):\d+|(?:^|\s)([\w./-]+\.\w+)::", re.MULTILINE
)
_NO_MATCHES = ("no matches", "no files match")
_LEVEL_ORDER = {"ERROR": 0, "WARN": 1, "INFO": 2}


@dataclass(frozen=True)
class Finding:
    level: str
    tag: str
    text: str
    index: int
    key: str
    paths: tuple[str, ...] = ()
    resolved: bool = False

    def line(self) -> str:
        level = "RESOLVED" if self.resolved else self.level
        return with_crumb(f"[{level}] [{self.tag}] {self.text}", [self.index])


def family(command: str) -> str | None:
    """tests, types, lint or build — what kind of check a command runs, if any."""
    found = _FAMILY.search(command)
    return found.lastgroup if found else None


def _lines(output: str) -> list[str]:
    """Non-blank lines of the output's end, decoration (`=====`, `-----`) trimmed."""
    tidy = (_RULE.sub("", line) for line in output[-_SCAN_CHARS:].splitlines())
    return [line for line in tidy if line.strip()]


def key_line(output: str) -> str:
    """The most telling line of a failure: an assertion detail, a named exception, an error
    word — else the last line."""
    lines = _lines(output)
    for pattern in _KEY_LINES:
        for line in lines:
            if pattern.search(line):
                return clip(line, 160)
    return clip(lines[-1], 160) if lines else "(no output)"


def last_line(output: str) -> str:
    lines = _lines(output)
    return clip(lines[-1], 160) if lines else ""


def _paths(text: str) -> tuple[str, ...]:
    found = [next(g for g in m.groups() if g) for m in _PATHS.finditer(text[-20_000:])]
    return tuple(dict.fromkeys(p.removeprefix("./") for p in found))[:5]


def _bash_finding(block: BashBlock, _: None = None) -> Finding | None:
    command = squash(block.command)
    kind = family(command)
    key = f"family:{kind}" if kind else f"cmd:{command}"
    shown = clip(command, 80)
    if block.exit_code == 0:
        warned = _WARNINGS.search(block.output[-4000:]) if kind == "tests" else None
        if warned is None:
            return None
        return Finding("WARN", "tests", f"{shown} — {warned.group(0)}", block.entry_index, key)
    if _SEARCH.match(command) and block.exit_code == 1 and not block.output.strip():
        return Finding("INFO", "no matches", shown, block.entry_index, key)
    if block.exit_code is not None:
        status = f"exit {block.exit_code}"
    else:
        status = "timeout" if "timed out" in block.output else "no exit code"
    tag = kind or f"bash:{status}"
    text = f"{shown} — {key_line(block.output)}"
    return Finding("ERROR", tag, text, block.entry_index, key, _paths(block.output))


def _result_finding(block: ToolResultNBlock, path: str | None) -> Finding | None:
    where = f" {path}" if path else ""
    if not block.is_error and DIAGNOSTICS_HEADING in block.text:
        return _diagnostics_finding(block, path)
    if block.is_error:
        text = f"{block.name}{where}: {key_line(block.text)}"
        key = f"tool:{block.name}:{path}"
        return Finding("ERROR", block.name, text, block.entry_index, key, (path,) if path else ())
    if block.text.lstrip().lower().startswith(_NO_MATCHES):
        return Finding("INFO", "no matches", clip(block.text, 120), block.entry_index, "")
    return None


def _diagnostics_finding(block: ToolResultNBlock, path: str | None) -> Finding | None:
    """The errors a language server reported after a change (code intelligence adds them to
    the tool's result under DIAGNOSTICS_HEADING)."""
    errors = block.text.split(DIAGNOSTICS_HEADING, 1)[1].strip(": \n").splitlines()
    if not errors:
        return None
    more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
    key = f"diagnostics:{path}"
    paths = (path,) if path else ()
    return Finding(
        "ERROR", "diagnostics", clip(errors[0], 160) + more, block.entry_index, key, paths
    )


_ERROR_PATH = re.compile(r"^([^\s:]+):\d+:\d+: ", re.MULTILINE)


def _injected_diagnostics(block: UserBlock, _: None = None) -> Finding | None:
    """The errors a language server reported after a change, injected as context after the
    tool returned (`<context kind="output" ...>` around the DIAGNOSTICS_HEADING block)."""
    body = block.text.split(DIAGNOSTICS_HEADING, 1)[1].strip(": \n")
    errors = [line for line in body.splitlines() if _ERROR_PATH.match(line)]
    if not errors:
        return None
    paths = tuple(dict.fromkeys(m.group(1) for m in map(_ERROR_PATH.match, errors) if m))
    more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
    text, key = clip(errors[0], 160) + more, f"diagnostics:{paths[0]}"
    return Finding("ERROR", "diagnostics", text, block.entry_index, key, paths)


@dataclass(frozen=True)
class Fix:
    """What a later block proves: a command that passed, or a file written successfully."""

    command: str | None = None
    path: str | None = None


def _fix(block: NormalizedBlock, tools: ToolIndex, changing: frozenset[str]) -> Fix | None:
    if block.kind == "bash" and block.exit_code == 0:
        return Fix(command=squash(block.command))
    if block.kind == "tool_result" and not block.is_error:
        call = tools.call_of(block)
        if call is not None and call.name in changing:
            return Fix(path=changed_path(call))
    return None


def _subject(command: str) -> tuple[str, str]:
    """(program, last non-option argument): `python -m cache_stats` → (python, cache_stats)."""
    words = [w for w in command.split() if "=" not in w or w.startswith("-")]
    args = [w for w in words[1:] if not w.startswith("-")]
    return (words[0] if words else "", args[-1] if args else "")


def _fixed_by(finding: Finding, fix: Fix) -> bool:
    if fix.path is not None and fix.path in finding.paths:
        return True
    if fix.command is None or not finding.key.startswith(("family:", "cmd:")):
        return False
    if finding.key.startswith("family:"):
        return finding.key == f"family:{family(fix.command)}"
    program, subject = _subject(finding.key.removeprefix("cmd:"))
    return _subject(fix.command)[0] == program and subject in fix.command


def _tail(blocks: Sequence[NormalizedBlock]) -> list[NormalizedBlock]:
    """The last TAIL_BLOCKS blocks that are not thinking, read from the end."""
    tail: list[NormalizedBlock] = []
    for i in range(len(blocks) - 1, -1, -1):
        if len(tail) == TAIL_BLOCKS:
            break
        if blocks[i].kind != "thinking":
            tail.append(blocks[i])
    tail.reverse()
    return tail


def classify(
    blocks: Sequence[NormalizedBlock], tools: ToolIndex, facts: Facts = NO_FACTS
) -> list[Finding]:
    """Findings in the tail, latest per key, each marked resolved when a later block fixed it:
    the same command or one of its family passed, the same program passed on the same subject
    (`python -m x` after `python -m pkg.x`), or a file the finding names was written."""
    tail = _tail(blocks)
    findings: list[Finding] = []
    changing = changing_tools()
    for block in tail:
        fix = _fix(block, tools, changing)
        if fix is not None:
            findings = [
                replace(f, resolved=True)
                if not f.resolved and f.level != "INFO" and _fixed_by(f, fix)
                else f
                for f in findings
            ]
        found = None
        if block.kind == "bash":
            found = facts.of(_bash_finding, block, None)
        elif block.kind == "tool_result":
            found = facts.of(_result_finding, block, tools.path_of(block))
        elif block.kind == "user" and DIAGNOSTICS_HEADING in block.text:
            found = facts.of(_injected_diagnostics, block, None)
        if found is not None:
            findings = [f for f in findings if not (found.key and f.key == found.key)]
            findings.append(found)
    return findings


def tail_findings(tools: ToolIndex, facts: Facts) -> list[Finding]:
    """`classify` of the index's blocks, once per compaction (`tools.derived(tail_findings,
    facts)`): Outstanding Context and Progress both report them."""
    return classify(tools.blocks, tools, facts)


class OutstandingContext:
    name = "outstanding"
    title = "Outstanding Context"
    merge = "replace"

    def __call__(self, blocks: Sequence[NormalizedBlock], ctx: ExtractorContext) -> list[str]:
        findings = tool_index(blocks, ctx).derived(tail_findings, facts_of(ctx))
        ordered = sorted(findings, key=lambda f: (f.resolved, _LEVEL_ORDER[f.level]))
        return [f.line() for f in ordered[:MAX_FINDINGS]]
