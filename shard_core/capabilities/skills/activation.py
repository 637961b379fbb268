"""Activation durability: a loaded skill outlives the compaction that folds its tool result.

A successful `load_skill` asks the turn loop for a `SkillCheckpoint` linked to its result (the
`checkpoint` intent in the result's details). While that result is in the live window the model
sees the body there and nothing is added. Once compaction folds it away, the body comes back in
the `## Activated Skills` prompt section, exactly as the model first read it (the logged result,
not today's file). Everything is read from the active branch — the parentId chain — so an
activation on another branch, or in a fork taken before the load, never appears. Newest
activations come first; the section holds at most 160 KiB and never a partial body.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from shard_core.engine.compaction import live_context
from shard_core.types import (
    SessionEntry,
    SkillCheckpoint,
    SystemSection,
    ToolResultEntry,
)

MAX_ACTIVATED_BYTES = 160 * 1024
HEADING = "## Activated Skills"
INTRO = (
    "Skills you loaded earlier in this session; the tool results that returned them were "
    "summarised away. Keep following them where they apply."
)
SECTION_NAME = "skills:activated"


def activation_intent(name: str, path: str) -> dict[str, object]:
    """What `load_skill` puts in its result's details for the turn loop to persist."""
    return SkillCheckpoint(name=name, path=path).model_dump(exclude_none=True)


def activated_section(
    branch: Sequence[SessionEntry], *, skip: Collection[str] = ()
) -> SystemSection | None:
    """The rehydrated bodies for this branch, or None when every activation is still live (or
    there is none). `skip`: names already in the prompt another way (preloaded)."""
    return ActivationScan().section(branch, skip=skip)


class ActivationScan:
    """`activated_section` for one agent, asked on every request: the branch only grows between
    requests, so only the entries appended since the last call are looked at (a branch that is
    not an extension of the last one — a fork, a resumed leaf — is scanned again in full)."""

    def __init__(self) -> None:
        self._length = 0
        self._last_id: str | None = None
        self._activations: list[SkillCheckpoint] = []
        self._results: dict[str, ToolResultEntry] = {}
        self._compacted = False

    def section(
        self, branch: Sequence[SessionEntry], *, skip: Collection[str] = ()
    ) -> SystemSection | None:
        self._advance(branch)
        if not self._activations or not self._compacted:
            return None  # the cheap common case: nothing was ever folded away
        _, kept = live_context(branch)
        live = {e.id for e in kept}
        bodies, dropped = _select(self._activations, self._results, live, skip)
        if not bodies and not dropped:
            return None
        parts = [HEADING, INTRO, *bodies]
        if dropped:
            parts.append(
                f"Not repeated here (over the {MAX_ACTIVATED_BYTES // 1024} KiB limit for this "
                f"section): {', '.join(dropped)}. Call load_skill again if you need one of them."
            )
        return SystemSection(name=SECTION_NAME, text="\n\n".join(parts), stable=False)

    def _advance(self, branch: Sequence[SessionEntry]) -> None:
        n = self._length
        if n == 0 or len(branch) < n or branch[n - 1].id != self._last_id:
            self._reset()
            n = 0
        for entry in branch[n:]:
            # The literal `type` field, not isinstance: this runs over every new entry.
            if entry.type == "checkpoint":
                if entry.details.kind == "skill":
                    self._activations.append(entry.details)
            elif entry.type == "tool_result":
                if entry.details.name == "load_skill":
                    self._results[entry.id] = entry
            elif entry.type == "compaction":
                self._compacted = True
        self._length = len(branch)
        self._last_id = branch[-1].id if branch else None

    def _reset(self) -> None:
        self._length = 0
        self._last_id = None
        self._activations = []
        self._results = {}
        self._compacted = False


def _select(
    activations: list[SkillCheckpoint],
    results: dict[str, ToolResultEntry],
    live: set[str],
    skip: Collection[str],
) -> tuple[list[str], list[str]]:
    """Newest first, one per name; whole bodies within the cap, the rest named."""
    seen: set[str] = set(skip)
    bodies: list[str] = []
    dropped: list[str] = []
    used = 0
    for activation in reversed(activations):
        if activation.name in seen:
            continue
        seen.add(activation.name)
        source = activation.source_entry_id
        if source is None or source in live:
            continue  # the model still sees the tool result: no duplicate
        result = results.get(source)
        if result is None or result.details.result.is_error:
            continue
        text = result.details.result.text
        size = len(text.encode("utf-8"))
        if used + size > MAX_ACTIVATED_BYTES:
            dropped.append(activation.name)
            continue
        used += size
        bodies.append(text)
    return bodies, dropped
