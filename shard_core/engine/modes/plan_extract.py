"""extract_plan: the `## Implementation Plan` section of a reply as ordered plan steps.

Pure text work. The section starts at a heading whose text is "Implementation Plan" (any level,
any case) and ends at the next heading; when the reply has several, the last one counts. Steps
are the top-level numbered (`1.`, `1)`) or bulleted (`-`, `*`, `+`) items; indented lines and
nested items belong to the step above them, unindented prose ends a step. `- [x]` marks a step
done. Fenced code blocks are never mistaken for headings. A section without items is no plan."""

from __future__ import annotations

import re

from shard_core.types import PlanCheckpoint, PlanStep

__all__ = ["PLAN_HEADING", "extract_plan"]

PLAN_HEADING = "## Implementation Plan"
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_PLAN_TITLE = re.compile(r"implementation\s+plan:?", re.IGNORECASE)
_ITEM = re.compile(r"^(?P<indent>\s*)(?:\d+[.)]|[-*+])\s+(?P<text>.*\S)\s*$")
_CHECKBOX = re.compile(r"^\[(?P<mark>[ xX])\]\s+(?P<text>.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def extract_plan(text: str) -> PlanCheckpoint | None:
    """The plan in `text`, or None when there is no plan section with at least one step."""
    section = _last_plan_section(text.splitlines())
    if section is None:
        return None
    steps = _steps(section[1:])
    if not steps:
        return None
    return PlanCheckpoint(steps=steps, text="\n".join(section).strip())


def _last_plan_section(lines: list[str]) -> list[str] | None:
    found: list[str] | None = None
    current: list[str] | None = None
    fenced = False
    for line in lines:
        if _FENCE.match(line):
            fenced = not fenced
        heading = None if fenced else _HEADING.match(line)
        if heading is not None:
            current = [line] if _PLAN_TITLE.fullmatch(heading[2]) else None
            if current is not None:
                found = current
            continue
        if current is not None:
            current.append(line)
    return found


def _steps(body: list[str]) -> list[PlanStep]:
    items: list[list[str]] = []
    top: int | None = None
    open_item = False
    for line in body:
        match = _ITEM.match(line)
        indent = len(line) - len(line.lstrip()) if line.strip() else None
        if match and indent is not None and (top is None or indent <= top):
            top = indent
            items.append([match["text"]])
            open_item = True
        elif open_item and indent is not None and top is not None and indent > top:
            items[-1].append(line.strip())
        elif indent is not None:
            open_item = False  # prose after the list is not part of a step
    return [_step(lines) for lines in items]


def _step(lines: list[str]) -> PlanStep:
    first, rest = lines[0], lines[1:]
    box = _CHECKBOX.match(first)
    done = bool(box and box["mark"] in "xX")
    head = box["text"] if box else first
    return PlanStep(text="\n".join([head, *rest]), done=done)
