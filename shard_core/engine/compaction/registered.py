"""BudgetedExtractor: an extension's extractor as the compactor runs it.

Its lines are kept within its budget (`max_lines` / `max_chars` on the extractor, else the
defaults here), each flattened to one string; if it raises, its section is empty and the
failure is reported with the extension's identity. `with_extractors` places extension
sections among the built-in ones: a namesake replaces the built-in in place, a new one goes
before the transcript.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from shard_core.contracts.compactor import Extractor, ExtractorContext
from shard_core.types import NormalizedBlock

MAX_LINES = 20
MAX_CHARS = 2_000
TRANSCRIPT_POLICY = "rolling-transcript"


class BudgetedExtractor:
    def __init__(
        self, inner: Extractor, extension: str, report: Callable[[str, str], None]
    ) -> None:
        self.inner = inner
        self.extension = extension
        self.name = inner.name
        self.title = inner.title
        self.merge = str(getattr(inner, "merge", "replace"))
        self.max_lines = int(getattr(inner, "max_lines", MAX_LINES))
        self.max_chars = int(getattr(inner, "max_chars", MAX_CHARS))
        self._report = report

    def __call__(self, blocks: Sequence[NormalizedBlock], ctx: ExtractorContext) -> list[str]:
        try:
            produced = list(self.inner(blocks, ctx))
        except Exception as exc:  # a third-party bug must not stop compaction
            self._report(self.extension, f"extractor {self.name} failed: {exc!r}")
            return []
        lines: list[str] = []
        used = 0
        for raw in produced[: self.max_lines]:
            line = " ".join(str(raw).split())
            if used + len(line) > self.max_chars:
                line = line[: max(0, self.max_chars - used - 1)] + "…"
                lines.append(line)
                break
            lines.append(line)
            used += len(line)
        return lines


def with_extractors(base: Sequence[Extractor], extra: Sequence[Extractor]) -> list[Extractor]:
    """`base` with `extra` added: same name replaces in place, new ones before the transcript."""
    out = list(base)
    names = [e.name for e in out]
    for extractor in extra:
        if extractor.name in names:
            out[names.index(extractor.name)] = extractor
            continue
        at = next(
            (i for i, e in enumerate(out) if getattr(e, "merge", "") == TRANSCRIPT_POLICY),
            len(out),
        )
        out.insert(at, extractor)
        names.insert(at, extractor.name)
    return out
