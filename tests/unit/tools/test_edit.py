"""EditTool: exact replacements, all or nothing, encodings and line endings kept."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from shard_core.contracts import ToolContext
from shard_core.tools import EditTool
from shard_core.types.render import DiffDescriptor, Hunk
from tests.unit.tools.conftest import run

SOURCE = "def greet(name):\n    print('hi', name)\n    return name\n"


@pytest.fixture
def source(workspace: Path) -> Path:
    path = workspace / "greet.py"
    path.write_text(SOURCE)
    return path


async def test_single_replacement_returns_a_diff(source: Path, ctx: ToolContext) -> None:
    result = await run(EditTool(), ctx, path="greet.py", old_string="'hi'", new_string="'hello'")
    assert not result.is_error
    assert source.read_text() == SOURCE.replace("'hi'", "'hello'")
    assert result.text == "edited greet.py: 1 replacement, +1 -1 lines"
    assert result.render == [
        DiffDescriptor(
            path="greet.py",
            hunks=[
                Hunk(
                    old_start=1,
                    old_lines=3,
                    new_start=1,
                    new_lines=3,
                    lines=[
                        " def greet(name):",
                        "-    print('hi', name)",
                        "+    print('hello', name)",
                        "     return name",
                    ],
                )
            ],
        )
    ]
    assert result.details == {
        "path": "greet.py",
        "replacements": 1,
        "lines_added": 1,
        "lines_removed": 1,
        "encoding": "utf-8",
        "line_ending": "lf",
    }


async def test_edits_apply_in_order(source: Path, ctx: ToolContext) -> None:
    edits = [
        {"old_string": "greet", "new_string": "welcome"},
        {"old_string": "def welcome(name)", "new_string": "def welcome(who)"},
        {"old_string": "name", "new_string": "who", "replace_all": True},
    ]
    result = await run(EditTool(), ctx, path="greet.py", edits=edits)
    assert result.text == "edited greet.py: 4 replacements, +3 -3 lines"
    assert source.read_text() == "def welcome(who):\n    print('hi', who)\n    return who\n"


async def test_one_failing_edit_changes_nothing(source: Path, ctx: ToolContext) -> None:
    edits = [
        {"old_string": "greet", "new_string": "welcome"},
        {"old_string": "missing text", "new_string": "x"},
    ]
    result = await run(EditTool(), ctx, path="greet.py", edits=edits)
    assert result.is_error
    assert result.text == "edit 2 of 2: old_string not found in greet.py; no changes were made"
    assert source.read_text() == SOURCE


async def test_not_found_points_at_a_near_miss(source: Path, ctx: ToolContext) -> None:
    result = await run(
        EditTool(), ctx, path="greet.py", old_string="print('hi', name)\n  return name",
        new_string="x",
    )  # fmt: skip
    assert result.text == (
        "old_string not found in greet.py (its first line, trimmed, appears at line 2; "
        "check the text after it); no changes were made"
    )


async def test_ambiguous_match_needs_context_or_replace_all(
    workspace: Path, ctx: ToolContext
) -> None:
    (workspace / "t.txt").write_text("x = 1\nx = 1\nx = 1\n")
    result = await run(EditTool(), ctx, path="t.txt", old_string="x = 1", new_string="x = 2")
    assert result.is_error
    assert result.text == (
        "old_string found 3 times in t.txt; add surrounding context to make it unique "
        "or set replace_all; no changes were made"
    )
    everywhere = await run(
        EditTool(), ctx, path="t.txt", old_string="x = 1", new_string="x = 2", replace_all=True
    )
    assert everywhere.details["replacements"] == 3
    assert (workspace / "t.txt").read_text() == "x = 2\nx = 2\nx = 2\n"


@pytest.mark.parametrize(
    ("input", "message"),
    [
        ({"old_string": "a", "new_string": "a"}, "old_string and new_string are identical"),
        ({"old_string": "", "new_string": "a"}, "old_string is empty; use write"),
        ({}, "missing 'edits' (or 'old_string' and 'new_string')"),
        ({"edits": []}, "missing 'edits' (or 'old_string' and 'new_string')"),
        ({"old_string": "a"}, "missing required field 'new_string'"),
        (
            {"edits": [{"old_string": "a", "new_string": "b"}], "old_string": "a"},
            "give either 'edits' or 'old_string', not both",
        ),
        (
            {
                "edits": [
                    {"old_string": "a", "new_string": "b"},
                    {"old_string": "c", "new_string": "c"},
                ]
            },
            "edit 2: old_string and new_string are identical",
        ),
    ],
)
async def test_malformed_edits_are_refused(
    input: dict[str, object], message: str, source: Path, ctx: ToolContext
) -> None:
    result = await run(EditTool(), ctx, path="greet.py", **input)
    assert result.is_error
    assert result.text.startswith(f"invalid edit input: {message}")
    assert source.read_text() == SOURCE


async def test_crlf_files_match_plain_newlines_and_stay_crlf(
    workspace: Path, ctx: ToolContext
) -> None:
    path = workspace / "win.txt"
    path.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    result = await run(
        EditTool(), ctx, path="win.txt", old_string="one\ntwo\n", new_string="1\n2\n2.5\n"
    )
    assert not result.is_error
    assert path.read_bytes() == b"1\r\n2\r\n2.5\r\nthree\r\n"
    assert result.details["line_ending"] == "crlf"


async def test_bom_and_latin1_are_kept(workspace: Path, ctx: ToolContext) -> None:
    bom = workspace / "bom.txt"
    bom.write_bytes(b"\xef\xbb\xbfkey = old\n")
    await run(EditTool(), ctx, path="bom.txt", old_string="old", new_string="nëw")
    assert bom.read_bytes() == "\ufeffkey = nëw\n".encode()
    latin = workspace / "latin.txt"
    latin.write_bytes("café = 1\n".encode("latin-1"))
    result = await run(EditTool(), ctx, path="latin.txt", old_string="1", new_string="2")
    assert result.details["encoding"] == "latin-1"
    assert latin.read_bytes() == "café = 2\n".encode("latin-1")


async def test_text_a_latin1_file_cannot_hold_is_refused(workspace: Path, ctx: ToolContext) -> None:
    latin = workspace / "latin.txt"
    latin.write_bytes("prix: 5 francs\n".encode("latin-1") + b"\xe9\n")
    result = await run(EditTool(), ctx, path="latin.txt", old_string="francs", new_string="€")
    assert result.is_error
    assert result.text == "latin.txt is latin-1; it cannot hold '€'; no changes were made"
    assert latin.read_bytes() == b"prix: 5 francs\n\xe9\n"


async def test_mode_is_kept(source: Path, ctx: ToolContext) -> None:
    source.chmod(0o700)
    await run(EditTool(), ctx, path="greet.py", old_string="'hi'", new_string="'yo'")
    assert stat.S_IMODE(source.stat().st_mode) == 0o700


async def test_missing_directory_and_binary_targets(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "d").mkdir()
    (workspace / "b.bin").write_bytes(b"\x00\x01")
    edit = {"old_string": "a", "new_string": "b"}
    missing = await run(EditTool(), ctx, path="nope.py", **edit)
    assert missing.text == "nope.py does not exist; use write to create it"
    folder = await run(EditTool(), ctx, path="d", **edit)
    assert folder.text == "d is a directory"
    binary = await run(EditTool(), ctx, path="b.bin", **edit)
    assert binary.text == "b.bin is a binary file; edit works on text"
    assert all(r.is_error for r in (missing, folder, binary))
