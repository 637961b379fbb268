"""ReadTool: numbered lines, paging, caps, binary refusal, images."""

from __future__ import annotations

import base64
from pathlib import Path

from shard_core.contracts import ToolContext
from shard_core.tools import ReadTool
from shard_core.tools.read import MAX_LINE_CHARS
from shard_core.types import ImageBlock, TextBlock
from shard_core.types.render import TextDescriptor
from tests.unit.tools.conftest import run


async def test_lines_are_numbered_like_cat_n(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "a.py").write_text("import os\n\ndef f():\n    return 1\n")
    result = await run(ReadTool(), ctx, path="a.py")
    body = "     1\timport os\n     2\t\n     3\tdef f():\n     4\t    return 1"
    assert not result.is_error
    assert result.text == body
    assert result.render == [TextDescriptor(text=body, format="code", language="python")]
    assert result.details == {
        "path": "a.py",
        "bytes": 33,
        "encoding": "utf-8",
        "total_lines": 4,
        "start_line": 1,
        "end_line": 4,
        "truncated": False,
    }


async def test_offset_and_limit_page_with_a_marker(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "n.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    result = await run(ReadTool(), ctx, path="n.txt", offset=4, limit=3)
    assert result.text == (
        "     4\tline 4\n     5\tline 5\n     6\tline 6\n\n"
        "[showing lines 4-6 of 10; use offset=7 to continue]"
    )
    assert result.details["truncated"] is True
    last = await run(ReadTool(), ctx, path="n.txt", offset=9)
    assert last.text == "     9\tline 9\n    10\tline 10"


async def test_default_limit_is_2000_lines(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "long.txt").write_text("x\n" * 2500)
    result = await run(ReadTool(), ctx, path="long.txt")
    assert result.text.endswith("\n\n[showing lines 1-2000 of 2500; use offset=2001 to continue]")


async def test_long_lines_are_cut(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "wide.txt").write_text("a" * 5000 + "\nshort\n")
    result = await run(ReadTool(), ctx, path="wide.txt")
    first, second = result.text.split("\n")
    assert first == f"     1\t{'a' * MAX_LINE_CHARS}… [line truncated: 5000 chars]"
    assert second == "     2\tshort"


async def test_output_is_capped_near_50_kb(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "big.txt").write_text(("y" * 999 + "\n") * 200)
    result = await run(ReadTool(), ctx, path="big.txt")
    assert len(result.text.encode()) < 51_000
    assert result.text.endswith(
        "\n\n[truncated at 50 KB: showing lines 1-49 of 200; use offset=50 to continue]"
    )
    assert result.details["end_line"] == 49


async def test_crlf_and_bom_do_not_leak_into_lines(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "w.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\n")
    result = await run(ReadTool(), ctx, path="w.txt")
    assert result.text == "     1\tone\n     2\ttwo"
    assert result.details["encoding"] == "utf-8-sig"


async def test_latin1_text_is_read(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "l.txt").write_bytes("café\n".encode("latin-1"))
    result = await run(ReadTool(), ctx, path="l.txt")
    assert result.text == "     1\tcafé"
    assert result.details["encoding"] == "latin-1"


async def test_binary_files_are_refused(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "blob.bin").write_bytes(b"\x7fELF\x00\x01\x02" + bytes(100))
    result = await run(ReadTool(), ctx, path="blob.bin")
    assert result.is_error
    assert result.text == "binary file (107 bytes): blob.bin"


async def test_undecodable_bytes_are_binary(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "junk").write_bytes(b"text\x81\x02\xfe\xff more")
    result = await run(ReadTool(), ctx, path="junk")
    assert result.is_error
    assert result.text == "binary file (13 bytes): junk"


async def test_png_comes_back_as_an_image(workspace: Path, ctx: ToolContext) -> None:
    png = b"\x89PNG\r\n\x1a\n" + bytes(20)
    (workspace / "dot.png").write_bytes(png)
    result = await run(ReadTool(), ctx, path="dot.png")
    assert result.content == [
        TextBlock(text="dot.png: image/png, 28 bytes"),
        ImageBlock(media_type="image/png", data=base64.b64encode(png).decode()),
    ]


async def test_empty_file(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "empty").write_text("")
    result = await run(ReadTool(), ctx, path="empty")
    assert not result.is_error
    assert result.text == "(empty file)"


async def test_missing_file_directory_and_offset_errors(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "d").mkdir()
    (workspace / "three.txt").write_text("1\n2\n3\n")
    missing = await run(ReadTool(), ctx, path="nope.txt")
    assert (missing.is_error, missing.text) == (True, "file not found: nope.txt")
    folder = await run(ReadTool(), ctx, path="d")
    assert (folder.is_error, folder.text) == (True, "d is a directory; use ls to list it")
    past = await run(ReadTool(), ctx, path="three.txt", offset=9)
    assert (past.is_error, past.text) == (
        True,
        "offset 9 is past the end of three.txt (3 lines)",
    )
