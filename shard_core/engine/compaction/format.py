"""format_summary: sections → the summary document, merged with the previous one, redacted.

Layout: a fixed handoff preamble, one `## Title` section per extractor (stable sections first),
a `---` line, then `## Brief Transcript`. Section items are `- ` lines, transcript lines start
with `[` or spaces, so no body line can pass for a heading and the next compaction can parse
the document back (`parse_summary`) and merge section by section.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from shard_core.engine.compaction.file_lines import fold_oldest, folded_length, is_compact
from shard_core.engine.compaction.gates import Haystack
from shard_core.engine.compaction.merge import merge_lines
from shard_core.engine.compaction.redact import HINTS, redact, redact_hinted
from shard_core.engine.compaction.sections import Section

PREAMBLE = (
    "# Compacted session summary\n\n"
    "The earlier part of this conversation was compacted. The sections below were extracted "
    "deterministically from those entries (no model wrote them); the messages after this "
    "summary are verbatim. Work listed as done or changed is done: do not redo it, and treat "
    "[RESOLVED] items as fixed. `#N` and `(recall: expand=[N])` name entry N of the session "
    "log: call the `recall` tool with `expand: [N]` for that entry in full, or with `query` to "
    "search everything said and done before this summary."
)
SEPARATOR = "---"
TRANSCRIPT_POLICY = "rolling-transcript"
CUT_NOTE = "\n…[summary cut to fit its budget; use recall]\n"


@dataclass(frozen=True)
class ParsedSummary:
    """A summary read back: section title → item lines, and the transcript lines."""

    sections: dict[str, list[str]] = field(default_factory=dict[str, list[str]])
    transcript: list[str] = field(default_factory=list[str])
    transcript_title: str = "Brief Transcript"


def _flat(line: str) -> str:
    return line.replace("\r", " ").replace("\n", " ")


def _body(line: str) -> str:
    flat = _flat(line)
    return "  " + flat if flat.startswith("#") or flat.strip() == SEPARATOR else flat


_Rendered = dict[int, tuple[Section, str]]
"""Rendered sections by id (with the section, so an id reused by another is no hit)."""


def render(sections: Sequence[Section], rendered: _Rendered | None = None) -> str:
    """The document; `rendered` keeps each section's text for the next call (`fit` renders
    again after dropping a line, and every other section is the same object)."""
    memo: _Rendered = {} if rendered is None else rendered
    parts = [PREAMBLE]
    transcript: list[Section] = []
    for section in sections:
        if section.merge == TRANSCRIPT_POLICY:
            transcript.append(section)
        elif section.lines:
            parts.append(_section_text(section, memo, False))
    shown = [s for s in transcript if s.lines]
    if shown:
        parts.append(SEPARATOR)
        parts += [_section_text(section, memo, True) for section in shown]
    return "\n\n".join(parts) + "\n"


def _section_text(section: Section, memo: _Rendered, transcript: bool) -> str:
    hit = memo.get(id(section))
    if hit is not None and hit[0] is section:
        return hit[1]
    if transcript:
        text = f"## {section.title}\n" + "\n".join(_body(x) for x in section.lines)
    else:
        items = "\n".join("- " + _flat(line) for line in section.lines)
        text = f"## {section.title}\n{items}"
    memo[id(section)] = (section, text)
    return text


def parse_summary(text: str) -> ParsedSummary:
    parsed = ParsedSummary()
    title: str | None = None
    in_transcript = False
    for line in text.splitlines():
        if line == SEPARATOR:
            in_transcript, title = True, None
        elif line.startswith("## "):
            if in_transcript:
                parsed = replace(parsed, transcript_title=line[3:].strip())
            else:
                title = line[3:].strip()
                parsed.sections.setdefault(title, [])
        elif in_transcript and line.strip():
            parsed.transcript.append(line)
        elif title is not None and line.startswith("- "):
            parsed.sections[title].append(line[2:])
    return parsed


def merge_sections(previous: ParsedSummary, fresh: Sequence[Section]) -> list[Section]:
    """Fresh sections merged with their previous namesakes; previous sections no extractor
    produced this time are kept as they were, before the transcript."""
    merged: list[Section] = []
    for section in fresh:
        if section.merge == TRANSCRIPT_POLICY:
            before = previous.transcript
        else:
            before = previous.sections.get(section.title, [])
        lines = merge_lines(section.merge, list(before), list(section.lines))
        merged.append(replace(section, lines=tuple(lines)))
    titles = {s.title for s in fresh}
    kept = [
        Section(title.lower().replace(" ", "-"), title, tuple(lines), "sticky")
        for title, lines in previous.sections.items()
        if title not in titles and lines
    ]
    cut = next((i for i, s in enumerate(merged) if s.merge == TRANSCRIPT_POLICY), len(merged))
    return merged[:cut] + kept + merged[cut:]


def _drop_oldest_turn(lines: tuple[str, ...]) -> tuple[str, ...]:
    """The transcript without its first turn (or first line, when no later turn starts)."""
    for i in range(1, len(lines)):
        if lines[i].startswith("[user"):
            return lines[i:]
    return lines[1:]


SHRINK_ORDER = ("transcript", "types", "turns", "", "files", "commits", "outstanding",
                "progress", "decisions", "preferences", "goal")  # fmt: skip
"""Which section gives up a line first when the summary is over its budget (`""`: any section
not named here, e.g. an extension's). The verbatim-ish history goes before the facts; the
facts go last, and the goal and the preferences last of all."""
OLDEST_FIRST = frozenset({"turns", "commits", "decisions", "preferences"})
"""Sections listed oldest first: they lose their first line (the newest commit and preference
are the ones a recall question asks about). Files And Changes loses no path: its oldest
detailed line goes into the compact list (file_lines.py)."""
EMPTIABLE = frozenset({"transcript", "types", "turns"})
"""Sections that may lose every line; the others keep at least one."""


DEFERRABLE = ("turns", "types", "transcript")
"""The sections fit may empty whole (EMPTIABLE), most valuable first: what `build_sections`
works out last, and only while the summary has room for them."""


def over_budget(
    sections: Sequence[Section],
    left_out: frozenset[str],
    *,
    previous: str | None,
    max_chars: int,
    redactor: Callable[[str], str] = redact,
) -> bool:
    """Whether `format_summary(sections, previous, max_chars=…)` would be over `max_chars`
    before fit drops a line, the previous summary's sections titled in `left_out` left out."""
    fresh = _redacted(sections, redactor)
    if previous:
        parsed = parse_summary(previous)
        kept = {t: lines for t, lines in parsed.sections.items() if t not in left_out}
        fresh = merge_sections(replace(parsed, sections=kept), fresh)
    return _length(fresh, {}) > room_for(fresh, max_chars)


PATHS_SHARE = 2
"""When every changed path cannot fit in the budget beside the other sections, the summary
grows to hold them all plus 1/PATHS_SHARE of the budget for the rest (`room_for`)."""


def room_for(sections: Sequence[Section], max_chars: int) -> int:
    """The characters the summary may take: `max_chars`, or more when the changed paths alone
    (all in the compact list, the least they take) leave under 1/PATHS_SHARE of it for the
    other sections. No path is ever left out (file_lines.py), and a session that changed a
    thousand files needs the room to say so."""
    files = next((s for s in sections if s.name == "files" and s.lines), None)
    if files is None:
        return max_chars
    least = folded_length(files.lines) + len(files.title) + 8
    return max(max_chars, least + max_chars // PATHS_SHARE)


def _rank(section: Section) -> int:
    name = "transcript" if section.merge == TRANSCRIPT_POLICY else section.name
    return SHRINK_ORDER.index(name) if name in SHRINK_ORDER else SHRINK_ORDER.index("")


def _shrunk(section: Section) -> Section | None:
    """The section without its least valuable line, None when it keeps what it has: the
    transcript loses its oldest turn, the goal its oldest scope change (never the goal)."""
    name = "transcript" if section.merge == TRANSCRIPT_POLICY else section.name
    if len(section.lines) <= (0 if name in EMPTIABLE else 1):
        return None
    if name == "transcript":
        lines = _drop_oldest_turn(section.lines)
    elif name == "goal":
        lines = section.lines[:1] + section.lines[2:]
    elif name == "files":
        folded = fold_oldest(section.lines)
        return None if folded is None else replace(section, lines=folded)
    elif name in OLDEST_FIRST:
        lines = section.lines[1:]
    else:
        lines = section.lines[:-1]
    return replace(section, lines=lines)


def shrink_once(sections: list[Section]) -> bool:
    """Drop the least valuable line of all (one step of `fit`, which takes them a section at
    a time: the same result)."""
    for i in sorted(range(len(sections)), key=lambda i: (_rank(sections[i]), -i)):
        shrunk = _shrunk(sections[i])
        if shrunk is not None:
            sections[i] = shrunk
            return True
    return False


def _section_length(section: Section, transcript: bool) -> int:
    """len(_section_text(section, …, transcript)) without building it (flattening keeps the
    length; an item adds "- ", a transcript line that could pass for a heading two spaces)."""
    lines = section.lines
    size = 4 + len(section.title) + sum(map(len, lines)) + len(lines) - 1
    if not transcript:
        return size + 2 * len(lines)
    return size + 2 * sum(1 for x in lines if x.startswith("#") or x.strip() == SEPARATOR)


def _length(sections: Sequence[Section], sizes: dict[int, tuple[Section, int]]) -> int:
    """len(render(sections)), from each section's length (kept in `sizes` by id: `fit`
    changes one section per step)."""
    total = len(PREAMBLE) + 1  # the final newline
    transcript = False
    for section in sections:
        if not section.lines:
            continue
        hit = sizes.get(id(section))
        is_transcript = section.merge == TRANSCRIPT_POLICY
        if hit is None or hit[0] is not section:
            hit = sizes[id(section)] = (section, _section_length(section, is_transcript))
        total += 2 + hit[1]
        transcript = transcript or is_transcript
    return total + (2 + len(SEPARATOR) if transcript else 0)


def fit(sections: Sequence[Section], max_chars: int) -> str:
    """The rendered summary, lines dropped (least valuable first) until it fits `max_chars`
    (or the room every changed path needs, `room_for`); as a last resort the text itself is
    cut, never into Files And Changes."""
    work = list(sections)
    max_chars = room_for(work, max_chars)
    sizes: dict[int, tuple[Section, int]] = {}
    total = _length(work, sizes)
    # least valuable first (SHRINK_ORDER; among equals the later section), each down to
    # what it keeps before the next gives up a line
    for i in sorted(range(len(work)), key=lambda i: (_rank(work[i]), -i)):
        if work[i].name == "files" and work[i].merge != TRANSCRIPT_POLICY:
            total = _fold_files(work, i, sizes, total, max_chars)
            continue
        while total > max_chars and (shrunk := _shrunk(work[i])) is not None:
            work[i] = shrunk
            total = _length(work, sizes)
    text = render(work)
    if len(text) > max_chars:
        # the last resort never cuts into Files And Changes: every changed path stays
        keep = _end_of(text, [s for s in work if s.name == "files" and s.lines])
        text = text[: max(0, max_chars - len(CUT_NOTE), keep)] + CUT_NOTE
    return text


def _fold_files(
    work: list[Section], i: int, sizes: dict[int, tuple[Section, int]], total: int, limit: int
) -> int:
    """`work[i]` (Files And Changes) with as few of its oldest detailed lines folded into the
    compact list as bring the summary within `limit` (all when none do): what folding one at a
    time gives, found by bisection (a fold never lengthens the section, but the first, which
    starts the list). Returns the new total."""
    if total <= limit:
        return total
    lines = work[i].lines
    detailed = len(lines) - (1 if lines and is_compact(lines[0]) else 0)

    def length(count: int) -> tuple[int, Section]:
        folded = fold_oldest(lines, count)
        section = work[i] if folded is None else replace(work[i], lines=folded)
        trial = [*work[:i], section, *work[i + 1 :]]
        return _length(trial, sizes), section

    low, high = 1, detailed  # the least count within the limit lies in [low, high]
    best = length(high) if detailed else (total, work[i])
    if best[0] <= limit:
        while low < high:
            mid = (low + high) // 2
            found = length(mid)
            if found[0] <= limit:
                high, best = mid, found
            else:
                low = mid + 1
    work[i] = best[1]
    return best[0]


def _end_of(text: str, sections: Sequence[Section]) -> int:
    """Where the first of `sections` ends in the rendered `text` (0 for none)."""
    if not sections:
        return 0
    head = text.find(f"\n## {sections[0].title}\n")
    if head == -1:
        return 0
    end = text.find("\n\n", head + 1)
    return len(text) if end == -1 else end


def _redacted(sections: Sequence[Section], redactor: Callable[[str], str]) -> list[Section]:
    """The sections with their lines redacted. A line without any hint of a secret is what
    `redact` returns it as: one search over all the lines finds those (a memo of `redact`, as
    the compactor's cache passes, is cheaper than that search for lines it has seen)."""
    lines = [line for section in sections for line in section.lines]
    if redactor is redact:  # the lowered lines the search made are the ones redaction reads
        hay = Haystack(lines)
        hinted = hay.any_of(HINTS)
        done = [redact_hinted(x, hay.text(i)) if hinted[i] else x for i, x in enumerate(lines)]
    else:
        done = list(map(redactor, lines))
    out = iter(done)
    return [replace(s, lines=tuple(next(out) for _ in s.lines)) for s in sections]


def format_summary(
    sections: Sequence[Section],
    previous: str | None = None,
    *,
    max_chars: int | None = None,
    redactor: Callable[[str], str] = redact,
) -> str:
    """The summary text: `sections` merged into `previous` (if any), redacted, and cut to at
    most `max_chars` characters when given. Pure: the same arguments give the same bytes
    (`redactor` is `redact` or a memo of it)."""
    # only fresh lines need redaction: the previous summary's were redacted when it was made
    fresh = _redacted(sections, redactor)
    merged = merge_sections(parse_summary(previous), fresh) if previous else fresh
    return render(merged) if max_chars is None else fit(merged, max_chars)
