"""The speed-ups that stand in for a plainer definition answer exactly like it: breadcrumbs
split from the last opening, a one-entry crumb, an entry's type read off its class, the block
index's shared lists, rendering a section once for several fits, the bash exit line found
from the last line, the `rm`/`mv` gate, signatures anchored at a newline put in front, a
transcript that stops rendering a turn which cannot fit."""

from __future__ import annotations

import re
from typing import Any, get_args

from hypothesis import given, settings
from hypothesis import strategies as st

from shard_core.engine.compaction import normalize
from shard_core.engine.compaction.context import BlockIndex, SectionContext
from shard_core.engine.compaction.excerpts import clip_all, crumb, split_crumb
from shard_core.engine.compaction.extractors.catalog import (
    SCAN_CHARS,
    SIGNATURE_CHARS,
    regex_signatures,
)
from shard_core.engine.compaction.extractors.files import _FILE_COMMAND, _FILE_COMMANDS
from shard_core.engine.compaction.extractors.turns import (
    TRANSCRIPT_CHARS,
    BriefTranscript,
    _fit,
    last_turns,
    render_block,
)
from shard_core.engine.compaction.format import CUT_NOTE, fit, render, shrink_once
from shard_core.engine.compaction.gates import Haystack
from shard_core.engine.compaction.normalize import _EXIT_LINE, exit_line
from shard_core.engine.compaction.sections import Section
from shard_core.engine.compaction.tokens import TYPE_OF, entry_type
from shard_core.types import SessionEntry
from tests.fixtures.sessions.builders import SessionBuilder, load_entries, save_entries
from tests.fixtures.sessions.synthetic import write_synthetic

PIECES = st.sampled_from(
    ["(recall: expand=[", "]", ")", " ", "\t", "\n", "\u00a0", "\u2003", "1", "23", ",", ", ",
     "\u0663", "x", "(", "[", "a b"]
)  # fmt: skip
LINE = st.lists(PIECES, max_size=14).map("".join)
_CRUMB = re.compile(r"\s*\(recall: expand=\[([\d, ]*)\]\)\s*$")


def _split_by_search(line: str) -> tuple[str, list[int]]:
    """The plain definition: the pattern searched from the start of the line."""
    found = _CRUMB.search(line)
    if found is None:
        return line, []
    numbers = [int(n) for n in found.group(1).replace(" ", "").split(",") if n]
    return line[: found.start()], numbers


@settings(max_examples=500, deadline=None)
@given(line=LINE)
def test_split_crumb_is_the_pattern_searched_from_the_start(line: str) -> None:
    assert split_crumb(line) == _split_by_search(line)


def test_a_crumb_of_one_entry_is_the_crumb_of_the_general_case() -> None:
    assert crumb([7]) == crumb(iter([7])) == "(recall: expand=[7])"
    assert crumb([9, 3, 9]) == "(recall: expand=[3, 9])"
    assert crumb([]) == ""


def test_every_entry_class_has_its_type_read_off_the_class(tmp_path: Any) -> None:
    classes = get_args(get_args(SessionEntry)[0])
    assert set(TYPE_OF) == set(classes)
    entries = load_entries(write_synthetic(tmp_path / "s.jsonl", 60, seed=3))
    b = SessionBuilder()
    b.plan([("step", False)])
    save_entries(b.entries, tmp_path / "b.jsonl")
    for entry in [*entries, *load_entries(tmp_path / "b.jsonl")]:
        assert entry_type(entry) == entry.type


def test_the_index_hands_out_one_list_per_kind_and_works_a_derivation_out_once() -> None:
    b = SessionBuilder()
    b.user("fix it")
    b.bash("pytest -q", "1 failed", 1)
    b.read("a.py", "def f(): ...")
    b.user("now")
    b.read("b.py", "def g(): ...")
    index = BlockIndex(normalize(b.entries))
    assert index.users() is index.users()
    assert list(index.users()) == index.of_kind("user")
    assert index.bash() is index.bash()
    assert list(index.bash()) == index.of_kind("bash")
    assert list(index.newest("tool_result")) == index.of_kind("tool_result")[::-1]
    assert index.user_texts().texts == ["fix it", "now"]
    assert index.commands().texts == ["pytest -q"]
    calls: list[object] = []

    def count(tools: BlockIndex, dep: object) -> int:
        calls.append(dep)
        return len(tools.blocks)

    one, other = object(), object()
    assert index.derived(count, one) == index.derived(count, one) == len(index.blocks)
    assert index.derived(count, other) == len(index.blocks)
    assert calls == [one, other]


SECTION_LINES = st.lists(st.sampled_from(["a", "# b", "---", "[user #1] c", "x\ny", "d" * 40]))


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(SECTION_LINES, min_size=4, max_size=4), budget=st.integers(0, 700))
def test_rendering_with_the_sections_kept_gives_the_same_text(
    lines: list[list[str]], budget: int
) -> None:
    policies = ["sticky-goal", "union", "rolling-turns", "rolling-transcript"]
    sections = [
        Section(f"s{i}", f"S {i}", tuple(x), policy)
        for i, (x, policy) in enumerate(zip(lines, policies, strict=True))
    ]
    kept: dict[int, tuple[Section, str]] = {}
    assert render(sections, kept) == render(sections) == render(sections, kept)
    assert fit(sections, budget) == _fit_rendering_all(sections, budget)


def _fit_rendering_all(sections: list[Section], max_chars: int) -> str:
    """`fit` as it was: every section rendered again after each dropped line."""
    work = list(sections)
    text = render(work)
    while len(text) > max_chars and shrink_once(work):
        text = render(work)
    if len(text) > max_chars:
        text = text[: max(0, max_chars - len(CUT_NOTE))] + CUT_NOTE
    return text


TAIL = st.lists(
    st.sampled_from(
        ["\n", "\n\n", "exit code ", "exit code", "1", "23", "-", "x", " ", "\u0663", "\r", "e"]
    ),
    max_size=12,
).map("".join)


@settings(max_examples=500, deadline=None)
@given(tail=TAIL)
def test_the_exit_line_is_where_the_pattern_search_finds_it(tail: str) -> None:
    found = _EXIT_LINE.search(tail)
    assert exit_line(tail) == ((found.start(), found.group(1)) if found else None)


@settings(max_examples=500, deadline=None)
@given(head=TAIL, tail=TAIL)
def test_the_exit_line_from_an_offset_is_the_search_of_the_text_after_it(
    head: str, tail: str
) -> None:
    """`exit_line(text, lo)` reads `text[lo:]` in place (no copy of a long output's tail)."""
    found = _EXIT_LINE.search(tail)
    expected = (len(head) + found.start(), found.group(1)) if found else None
    assert exit_line(head + tail, len(head)) == expected
    assert exit_line(tail, -5) == exit_line(tail)


COMMAND = st.lists(
    st.sampled_from(["rm", "mv", "r", "m", "v", " ", "x", "_", "-", "./a", "\u00e9", "1", ";"]),
    max_size=8,
).map("".join)


@settings(max_examples=500, deadline=None)
@given(commands=st.lists(COMMAND, max_size=6))
def test_the_file_command_gate_finds_what_the_word_boundary_pattern_finds(
    commands: list[str],
) -> None:
    found = Haystack(commands, lower=False).any_of((), _FILE_COMMANDS)
    assert found == [_FILE_COMMAND.search(c) is not None for c in commands]


_CARET = {
    ".py": r"^[ ]{0,4}(?:async\s+def|def|class)\s+(?!_(?!_init__))\w+[^\n]*",
    ".ts": r"^\s*export\s+(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?"
    r"(?:function\*?\s+\w+|interface\s+\w+|type\s+\w+|class\s+\w+|enum\s+\w+"
    r"|const\s+\w+\s*(?::[^=\n]+)?=\s*(?:async\s*)?\()[^\n]*"
    r"|^(?:declare\s+)?(?:abstract\s+)?(?:interface|type|class|enum)\s+\w+[^\n]*",
    ".go": r"^(?:func\s+(?:\([^)]*\)\s*)?[A-Z]\w*\s*\(|type\s+\w+\s+(?:struct|interface)\b)[^\n]*",
    ".rs": r"^\s*pub(?:\([^)]*\))?\s+(?:async\s+)?(?:unsafe\s+)?(?:fn|struct|enum|trait|type)"
    r"\s+\w+[^\n]*",
}
_CARET_NUMBER = re.compile(r"^\s*\d+\t", re.MULTILINE)


def _signatures_by_caret(path: str, text: str) -> list[str]:
    """The plain definition: line numbers and signatures found with `^` and MULTILINE."""
    pattern = re.compile(_CARET[path[path.rfind(".") :]], re.MULTILINE)
    source = _CARET_NUMBER.sub("", text[:SCAN_CHARS])
    found = [m.group(0).strip().rstrip("{;: ") for m in pattern.finditer(source)]
    return list(dict.fromkeys(clip_all(found, SIGNATURE_CHARS)))


_SOURCE_PIECES = st.sampled_from(
    ["\n", "\n\n", " ", "    ", "\t", "12", "7\t", "  3\t", "def ", "async def ", "class ",
     "export ", "default ", "function ", "interface ", "const ", " = (", "type ", "enum ",
     "pub ", "pub(crate) ", "fn ", "struct ", "func ", "(r *R) ", "Foo", "_x", "__init__",
     "x", "(", ")", "{", ";", ":", "\u00e9"]
)  # fmt: skip
_KEYWORDS = {
    ".py": ["def ", "async def ", "class ", "return "],
    ".ts": ["export function ", "export const ", "export default class ", "interface ", "type ",
            "declare enum ", "export interface "],
    ".go": ["func ", "func (r *R) ", "type "],
    ".rs": ["pub fn ", "pub(crate) struct ", "pub async fn ", "fn "],
}  # fmt: skip


def _source_line(suffix: str) -> st.SearchStrategy[str]:
    return st.tuples(
        st.sampled_from(["", "     1\t", "  12\t", "3\t"]),  # a read result's numbers, or none
        st.sampled_from(["", "  ", "    ", "      ", "\t"]),
        st.sampled_from([*_KEYWORDS[suffix], ""]),
        st.sampled_from(["Foo", "x", "_x", "__init__", "Bar struct", "Baz(", "Q = (", ""]),
        st.lists(_SOURCE_PIECES, max_size=4).map("".join),
    ).map("".join)


SOURCES = st.sampled_from(sorted(_KEYWORDS)).flatmap(
    lambda suffix: st.tuples(
        st.just(suffix),
        st.lists(_source_line(suffix) | _SOURCE_PIECES, min_size=1, max_size=12).map("".join),
    )
)
"""(suffix, source): lines like that language's (most start a signature) mixed with loose
pieces — blank lines, numbers without a tab, whitespace runs across lines."""


@settings(max_examples=400, deadline=None)
@given(source=SOURCES)
def test_signatures_anchored_at_a_newline_are_the_caret_patterns_signatures(
    source: tuple[str, str],
) -> None:
    suffix, text = source
    assert regex_signatures("a" + suffix, text) == _signatures_by_caret("a" + suffix, text)


def _transcript_rendering_all(blocks: list[Any]) -> list[str]:
    """The Brief Transcript as it was: every block of a turn rendered before its size is
    checked against the room left."""
    tools = BlockIndex(blocks)
    chosen: list[list[str]] = []
    used = 0
    for turn in last_turns(tools)[1]:
        lines = [line for b in turn if (line := render_block(b, tools)) is not None]
        if not lines:
            continue
        size = sum(len(line) for line in lines)
        if used + size > TRANSCRIPT_CHARS:
            if not chosen:
                chosen.append(_fit(lines, TRANSCRIPT_CHARS))
            break
        chosen.append(lines)
        used += size
    return [line for lines in reversed(chosen) for line in lines]


def test_the_transcript_stopping_at_a_turn_that_cannot_fit_is_the_transcript_rendering_all(
    tmp_path: Any,
) -> None:
    cases = 0
    for size, seed in ((40, 1), (300, 2), (1_200, 3), (3_000, 4)):
        entries = load_entries(write_synthetic(tmp_path / f"s{seed}.jsonl", size, seed=seed))
        for end in range(len(entries) // 3, len(entries) + 1, max(1, len(entries) // 7)):
            blocks = normalize(entries[:end])
            ctx = SectionContext(None, None, 0, tools=BlockIndex(blocks))
            assert BriefTranscript()(blocks, ctx) == _transcript_rendering_all(blocks)
            cases += 1
    assert cases > 20
