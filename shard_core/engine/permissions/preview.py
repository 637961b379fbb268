"""call_preview: what a call would do, shown with its permission request — bounded, fail-safe.

The tool computes it (`PreviewableTool.preview`: a diff for edit and write, the command for
bash); this module only asks, under a time limit, and bounds the answer so a 10,000-line rewrite
cannot swell the event. A preview that fails, hangs or returns nonsense is no preview: the
question is asked all the same, so a broken preview never decides or blocks a permission.
"""

from __future__ import annotations

import asyncio
import logging

from pydantic import TypeAdapter

from shard_core.contracts import PermissionQuery, PreviewableTool, Tool
from shard_core.types import DiffDescriptor, Hunk, RenderDescriptor, StatusDescriptor
from shard_core.types.base import DEFERRED
from shard_core.types.render import TextDescriptor

__all__ = ["MAX_PREVIEW_LINES", "PREVIEW_TIMEOUT", "bound_preview", "call_preview"]

PREVIEW_TIMEOUT = 2.0
"""Seconds a tool may take to preview a call before the question is asked without it."""
MAX_PREVIEW_LINES = 300
"""Diff and text lines kept across a whole preview; a note says how many more there were."""
MAX_TEXT_CHARS = 20_000
MAX_DESCRIPTORS = 8

_log = logging.getLogger(__name__)
_DESCRIPTORS: TypeAdapter[list[RenderDescriptor]] = TypeAdapter(
    list[RenderDescriptor], config=DEFERRED
)


async def call_preview(tool: Tool | None, query: PermissionQuery) -> tuple[RenderDescriptor, ...]:
    """The tool's preview of `query`'s call, bounded; () when it has none or it fails."""
    if not isinstance(tool, PreviewableTool):
        return ()
    try:
        raw = await asyncio.wait_for(
            tool.preview(query.input, query.tool_context()), PREVIEW_TIMEOUT
        )
        descriptors = _DESCRIPTORS.validate_python(raw)
    except Exception:  # a timeout, nonsense, a bug: fail safe, ask without a preview
        _log.warning("no preview for %s: it failed or took too long", query.tool, exc_info=True)
        return ()
    return tuple(bound_preview(descriptors))


def bound_preview(
    descriptors: list[RenderDescriptor], max_lines: int = MAX_PREVIEW_LINES
) -> list[RenderDescriptor]:
    """At most `max_lines` diff/text lines in all, then a note of what was left out."""
    kept: list[RenderDescriptor] = []
    budget, omitted = max_lines, 0
    for descriptor in descriptors[:MAX_DESCRIPTORS]:
        if isinstance(descriptor, DiffDescriptor):
            descriptor, budget, cut = _bound_diff(descriptor, budget)
        elif isinstance(descriptor, TextDescriptor):
            descriptor, budget, cut = _bound_text(descriptor, budget)
        else:
            cut = 0
        omitted += cut
        if descriptor is not None:
            kept.append(descriptor)
    if omitted:
        label = f"preview cut short: {omitted} more line{'s' if omitted != 1 else ''} not shown"
        kept.append(StatusDescriptor(label=label, tone="warn"))
    return kept


def _bound_diff(diff: DiffDescriptor, budget: int) -> tuple[DiffDescriptor, int, int]:
    hunks: list[Hunk] = []
    omitted = 0
    for hunk in diff.hunks:
        if budget <= 0:
            omitted += len(hunk.lines)
            continue
        if len(hunk.lines) > budget:
            omitted += len(hunk.lines) - budget
            hunk = hunk.model_copy(update={"lines": hunk.lines[:budget]})
        budget -= len(hunk.lines)
        hunks.append(hunk)
    return diff.model_copy(update={"hunks": hunks}), budget, omitted


def _bound_text(text: TextDescriptor, budget: int) -> tuple[TextDescriptor | None, int, int]:
    """The text cut to the budget (None when none is left), the budget left, lines cut."""
    lines = text.text[:MAX_TEXT_CHARS].split("\n")
    total = text.text.count("\n") + 1
    keep = lines[: max(budget, 0)]
    omitted = total - len(keep)
    if not keep:
        return None, budget, omitted
    if omitted or len(text.text) > MAX_TEXT_CHARS:
        text = text.model_copy(update={"text": "\n".join(keep)})
    return text, budget - len(keep), omitted
