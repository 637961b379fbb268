"""DeterministicCompactor: when to compact, where to cut, and the summary — never a model call.

Budgets (tokens, estimated from characters): the context after compaction is
`overhead + summary + kept tail`, where overhead is what the caller measured beyond the live
messages (system prompt, tool specs). The summary gets at most `summary_tokens` and the kept
tail at most `keep_recent_tokens`, both shrunk so the total stays within `target_tokens`. A
tail over budget is re-cut at a later safe boundary; an entry bigger than the whole budget is
folded and shown in the summary cut head + tail with a recall breadcrumb.

Incremental: `observe` (the turn loop calls it after each turn) does the per-entry work as
entries arrive — token scan, blocks, pairing, extractor facts (cache.py, span.py) — so the
boundary only cuts, folds cached results and merges. Output never depends on it: entries it
did not see are worked out at the boundary, a cold compactor does all of it in one pass over
the window (walk.py), and both give the same bytes.

Convergence: compacting the result again with the same measurements folds nothing (the kept
tail already fits) and returns None, so a loop that calls `compact` until `should_compact` is
false cannot spin. A compaction that would not shrink the context is not made (None) either,
unless the user asked for it (`reason="manual"`, `/compact`).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Literal

from shard_core.contracts.codeintel import CodeIntelligenceProvider
from shard_core.contracts.compactor import CompactionInput, Extractor
from shard_core.engine.compaction.cache import EntryCache
from shard_core.engine.compaction.context import NO_FACTS, BlockIndex, SectionContext
from shard_core.engine.compaction.cut import (
    MARKER_TYPES,
    Cut,
    Scan,
    Window,
    choose_cut,
    last_turn_tokens,
    live_window,
    scan_rows,
)
from shard_core.engine.compaction.extractors import DEFAULT_EXTRACTORS, warm_facts
from shard_core.engine.compaction.format import DEFERRABLE, format_summary, over_budget
from shard_core.engine.compaction.redact import redact
from shard_core.engine.compaction.registered import with_extractors
from shard_core.engine.compaction.sections import build_sections
from shard_core.engine.compaction.span import WindowSpan
from shard_core.engine.compaction.tokens import (
    CHARS_PER_TOKEN,
    CONTEXT_TYPES,
    ENTRY_OVERHEAD_TOKENS,
    entry_type,
    estimate_text,
)
from shard_core.engine.compaction.walk import walk_window
from shard_core.types import (
    CompactionDetails,
    NormalizedBlock,
    PlanCheckpoint,
    SessionEntry,
)

Numbering = Callable[[Sequence[SessionEntry]], Sequence[int]]
"""Stable entry index of each branch entry; the default is its position in the branch, which
is what recall numbers when the lineage is linear (see recall/lineage.py)."""

Reason = Literal["threshold", "overflow", "manual"]
_Blocks = tuple[list[NormalizedBlock], BlockIndex | None]
_Source = tuple[Scan, Callable[[int], _Blocks], bool]
"""A window's scan, its blocks before a cut (with their index when the source made one), and
whether they came from the cache."""


def latest_plan(
    branch: Sequence[SessionEntry], start: int = 0, end: int | None = None
) -> PlanCheckpoint | None:
    """The newest plan checkpoint among `branch[start:end]`."""
    top = len(branch) if end is None else end
    return _newest_plan(branch, range(top - 1, start - 1, -1))


def _newest_plan(branch: Sequence[SessionEntry], positions: Iterable[int]) -> PlanCheckpoint | None:
    for i in positions:
        entry = branch[i]
        if entry.type == "checkpoint" and entry.details.kind == "plan":
            return entry.details
    return None


class _PlanMemo:
    """`latest_plan(branch)` without rescanning what the previous compaction scanned: with the
    loop compacting a 28k-entry branch, that scan was the one cost growing with the session.

    A branch is the chain from the root to a leaf, so the entry at position k fixes every entry
    before it: when the very object remembered at k is still there, only later entries are new.
    Anything else (another branch, a shorter one) scans in full, so the answer is always what
    `latest_plan(branch)` returns."""

    def __init__(self) -> None:
        self._seen: tuple[SessionEntry, int, PlanCheckpoint | None] | None = None

    def latest(
        self, branch: Sequence[SessionEntry], window: Window | None = None
    ) -> PlanCheckpoint | None:
        """`latest_plan(branch)`; `window` (the branch's live window) spares reading the
        messages of a branch not seen before: a plan is among its other entries or earlier."""
        seen = self._seen
        if seen is not None and seen[1] < len(branch) and branch[seen[1]] is seen[0]:
            plan = latest_plan(branch, seen[1] + 1) or seen[2]
        elif window is not None:
            plan = _newest_plan(branch, reversed(window.others))
            plan = plan or latest_plan(branch, 0, window.start)
        else:
            plan = latest_plan(branch)
        if branch:
            self._seen = (branch[-1], len(branch) - 1, plan)
        return plan


def branch_positions(branch: Sequence[SessionEntry]) -> Sequence[int]:
    return range(len(branch))


class DeterministicCompactor:
    """The default Compactor. Pure: `compact` reads only its input (and the code index, when
    one is given, for the Type Catalog)."""

    name = "deterministic"

    def __init__(
        self,
        *,
        threshold: float = 0.8,
        keep_recent_tokens: int = 20_000,
        summary_tokens: int = 6_000,
        extractors: Sequence[Extractor] | None = None,
        code_index: CodeIntelligenceProvider | None = None,
        numbering: Numbering = branch_positions,
    ) -> None:
        if not 0 < threshold <= 1:
            raise ValueError(f"threshold must be in (0, 1], got {threshold}")
        self.threshold = threshold
        self.keep_recent_tokens = keep_recent_tokens
        self.summary_tokens = summary_tokens
        self.extractors = extractors
        self.code_index = code_index
        self.numbering = numbering
        self._plans = _PlanMemo()
        self._cache = EntryCache()
        self._span: WindowSpan | None = None

    def extend(
        self, extractors: Sequence[Extractor], code_index: CodeIntelligenceProvider | None
    ) -> None:
        """Take extension extractors (a namesake replaces a built-in in place, a new one goes
        before the transcript) and, when one is registered, the code intelligence."""
        base = DEFAULT_EXTRACTORS if self.extractors is None else self.extractors
        self.extractors = with_extractors(base, extractors)
        if code_index is not None:
            self.code_index = code_index

    def should_compact(self, context_tokens: int, context_window: int) -> bool:
        return context_window > 0 and context_tokens >= self.threshold * context_window

    def compact(self, data: CompactionInput) -> CompactionDetails | None:
        enabled = _pause_gc()
        try:
            return self._compact(data)
        finally:
            _resume_gc(enabled)

    def stats(self) -> dict[str, int]:
        """The cache's size and how many entries it has worked out so far (benches)."""
        return self._cache.stats()

    def observe(self, branch: Sequence[SessionEntry]) -> None:
        """Work out the per-entry part of the next compaction for entries not seen yet (the
        turn loop calls this after each turn), so the boundary only pairs, folds and merges."""
        enabled = _pause_gc()
        try:
            self._observe(branch)
        finally:
            _resume_gc(enabled)

    def _observe(self, branch: Sequence[SessionEntry]) -> None:
        numbering = self.numbering(branch)
        span = self._span
        if span is not None and _extends(span, branch):
            new, others = _split(branch, span.last_position + 1)
        else:  # the first call, a compaction since, another branch: start at the window
            window = live_window(branch)
            self._cache.keep_only([branch[p] for p in window.positions])  # the folded go
            span = self._span = WindowSpan(window)
            new, others = window.positions, window.others
        parts = self._cache.parts([branch[p] for p in new], [numbering[p] for p in new])
        if self._cache.fresh:
            warm_facts(self._cache.blocks(self._cache.fresh), self._cache.facts, self._cache.redact)
        span.extend(parts, new, others, branch)
        self._plans.latest(branch)  # the boundary then scans only what came after

    def _window(self, branch: Sequence[SessionEntry]) -> Window:
        """`live_window(branch)`, from the observed span when the branch continues it: then
        only the entries since the last turn end are read."""
        span = self._span
        if span is None or span.window is None or not _extends(span, branch):
            return live_window(branch)
        new, others = _split(branch, span.last_position + 1)
        start = span.window
        return Window(start.previous, start.start, span.positions + new, span.others + others)

    def _source(self, branch: Sequence[SessionEntry], window: Window) -> _Source:
        """The window's scan and its blocks by cut: from the observed span, from the cache
        when most entries are in it, else from one walk over the window (a cold start: a
        restart, a session file), keeping nothing."""
        numbering = self.numbering(branch)
        positions = window.positions
        entries = list(map(branch.__getitem__, positions))
        # the default numbering is the position itself: no second list of 28k numbers
        same = numbering == range(len(branch))
        indices = positions if same else list(map(numbering.__getitem__, positions))
        span = self._span
        if span is not None and span.starts(entries, indices):
            rest = range(len(span.entries), len(entries))  # a mid-turn compaction: this turn's
            parts = self._cache.parts([entries[i] for i in rest], [indices[i] for i in rest])
            others = [p for p in window.others if p > span.last_position]
            span.extend(parts, [window.positions[i] for i in rest], others, branch)
            if span.matches(entries, indices):
                return span.scan(), span.blocks, True
        if self._cache.mostly_held(entries, indices):
            parts = self._cache.parts(entries, indices)
            scan = scan_rows(window.positions, [p.scan for p in parts])
            return scan, lambda k: (self._cache.blocks(parts[:k]), None), True
        walked = walk_window(entries, window.positions, indices)
        return walked.scan, walked.blocks, False

    def _compact(self, data: CompactionInput) -> CompactionDetails | None:
        branch = data.branch
        window = self._window(branch)
        scan, blocks_before, warm = self._source(branch, window)
        tokens = scan.tokens
        previous = window.previous.details.summary if window.previous is not None else None
        live = sum(tokens) + (estimate_text(previous) + ENTRY_OVERHEAD_TOKENS if previous else 0)
        overhead = max(0, data.context_tokens - live)
        room = max(0, data.target_tokens - overhead - ENTRY_OVERHEAD_TOKENS)
        summary_budget = min(self.summary_tokens, room // 2)
        cut = self._cut(scan, room - summary_budget, data.reason, first=previous is None)
        if not any(tokens[: cut.keep_from]):
            return None  # nothing new to fold: the kept tail already fits
        end = window.positions[cut.keep_from] if cut.keep_from < len(tokens) else len(branch)
        first = next(i for i in range(window.start, end) if branch[i].type not in MARKER_TYPES)
        last = next(i for i in range(end - 1, first - 1, -1) if branch[i].type not in MARKER_TYPES)
        blocks, index = blocks_before(cut.keep_from)
        plan = self._plans.latest(branch, window)
        folded = _weight(tokens[: cut.keep_from]) + (estimate_text(previous) if previous else 0)
        summary_budget = min(summary_budget, adaptive_budget(folded, data.context_window))
        summary = self._summary(blocks, index, plan, previous, data, summary_budget, warm)
        after = overhead + estimate_text(summary) + ENTRY_OVERHEAD_TOKENS + cut.kept_tokens
        if after >= data.context_tokens and not data.force:
            # the summary would cost more than what it folds: not worth an entry, even when
            # asked for (a /compact that grows the context helps nobody)
            return None
        return CompactionDetails(
            summary=summary,
            first_kept_entry_id=branch[end].id if end < len(branch) else None,
            range_first_id=branch[first].id,
            range_last_id=branch[last].id,
            tokens_before=max(0, data.context_tokens),
            tokens_after=after,
            compactor=self.name,
            index=data.index,
            reason=_reason(data.reason),
        )

    def _cut(self, scan: Scan, room: int, reason: str, *, first: bool) -> Cut:
        """Where the kept tail starts. A manual compaction (the user asked) keeps only the last
        user turn; a session's very first one folds a lone turn whole, so `/compact` after one
        prompt compacts, while a lone turn after an earlier summary stays (it stops there)."""
        tokens, safe, user = scan.tokens, scan.safe, scan.user
        budget = min(self.keep_recent_tokens, room)
        if reason == "manual":
            last = last_turn_tokens(tokens, safe, user)
            if last is not None and last < sum(tokens):
                budget = min(budget, last)
            elif first:
                budget = 0
        return choose_cut(tokens, safe, user, budget)

    def _summary(
        self,
        blocks: list[NormalizedBlock],
        index: BlockIndex | None,
        plan: PlanCheckpoint | None,
        previous: str | None,
        data: CompactionInput,
        budget: int,
        warm: bool,
    ) -> str:
        ctx = SectionContext(
            code_index=self.code_index,
            previous_summary=previous,
            compaction_index=data.index,
            tools=index,
            plan=plan,
            facts=self._cache.facts if warm else NO_FACTS,
        )
        redactor = self._cache.redact if warm else redact
        max_chars = budget * CHARS_PER_TOKEN
        over = partial(over_budget, previous=previous, max_chars=max_chars, redactor=redactor)
        sections = build_sections(blocks, ctx, self.extractors, last=DEFERRABLE, over=over)
        return format_summary(sections, previous, max_chars=max_chars, redactor=redactor)


MIN_SUMMARY_TOKENS = 1_200
WINDOW_SHARE = 80
ENTRY_WEIGHT_CAP = 300
"""What one folded entry counts for at most in the summary's budget (tokens): a 300 KB build
log or fetched page says no more worth keeping than a 1.2 KB one, and sessions with a few huge
outputs got summaries padded with turns and transcript for them."""


def _weight(tokens: Sequence[int]) -> int:
    """The folded entries' tokens, each counted up to ENTRY_WEIGHT_CAP."""
    cap = ENTRY_WEIGHT_CAP
    return sum(t if t < cap else cap for t in tokens)


def adaptive_budget(folded_tokens: int, window: int) -> int:
    """The summary's share of what it replaces: three times the square root of the folded
    tokens (each entry counted up to ENTRY_WEIGHT_CAP: 1.2k tokens for a 160k-token fold, 2.1k
    for 500k), at least MIN_SUMMARY_TOKENS and at most 1/WINDOW_SHARE of the window (2.5k of a
    200k window). The summary is paid for on every later request, and a small fold has little
    to say: a fixed budget padded small folds with transcript. (Every changed path is listed
    even past it: format.room_for.)"""
    grown = 3 * int(folded_tokens**0.5)
    return max(MIN_SUMMARY_TOKENS, min(grown, max(window // WINDOW_SHARE, MIN_SUMMARY_TOKENS)))


def _pause_gc() -> bool:
    """Compaction allocates a block per entry while the whole session is alive; the cyclic
    collector would walk all of it again and again (half the run time at 28k entries). It
    creates no cycles, so collection waits until it is done. Paused before anything is
    allocated: a `with` block's context manager is an allocation, and one that starts a full
    collection (the session's debt, 250+ ms at 28k entries) inside the boundary it was to keep
    collections out of. Returns whether the collector was on."""
    enabled = gc.isenabled()
    gc.disable()
    return enabled


def _resume_gc(enabled: bool) -> None:
    if enabled:
        gc.enable()


def _split(branch: Sequence[SessionEntry], start: int) -> tuple[list[int], list[int]]:
    """Positions from `start` on of the context entries and of the others."""
    context: list[int] = []
    others: list[int] = []
    for p in range(start, len(branch)):
        (context if entry_type(branch[p]) in CONTEXT_TYPES else others).append(p)
    return context, others


def _extends(span: WindowSpan, branch: Sequence[SessionEntry]) -> bool:
    """Does `branch` continue the span's (same last entry, no compaction since)?"""
    at = span.last_position
    if at >= len(branch) or (at >= 0 and branch[at] is not span.last_entry):
        return False
    return all(entry_type(branch[p]) != "compaction" for p in range(at + 1, len(branch)))


def _reason(reason: str) -> Reason:
    if reason == "manual":
        return "manual"
    return "overflow" if reason == "overflow" else "threshold"
