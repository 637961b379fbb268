"""WriteTool: atomic whole-file writes with a diff, parents created, modes kept."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from shard_core.contracts import ToolContext
from shard_core.tools import WriteTool
from shard_core.types.render import DiffDescriptor, Hunk
from tests.unit.tools.conftest import run


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    yield
    os.umask(old)


@pytest.mark.usefixtures("umask_022")
async def test_creates_the_file_and_its_parents(workspace: Path, ctx: ToolContext) -> None:
    result = await run(WriteTool(), ctx, path="pkg/sub/new.py", content="a = 1\nb = 2\n")
    target = workspace / "pkg" / "sub" / "new.py"
    assert not result.is_error
    assert result.text == "wrote 12 bytes to pkg/sub/new.py (new file)"
    assert target.read_text() == "a = 1\nb = 2\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert result.render == [
        DiffDescriptor(
            path="pkg/sub/new.py",
            status="created",
            hunks=[
                Hunk(old_start=0, old_lines=0, new_start=1, new_lines=2, lines=["+a = 1", "+b = 2"])
            ],
        )
    ]
    assert result.details == {
        "path": "pkg/sub/new.py",
        "bytes": 12,
        "created": True,
        "lines_added": 2,
        "lines_removed": 0,
    }


async def test_overwrite_reports_a_diff_and_keeps_the_mode(
    workspace: Path, ctx: ToolContext
) -> None:
    target = workspace / "run.sh"
    target.write_text("#!/bin/sh\necho one\nexit 0\n")
    target.chmod(0o751)
    result = await run(WriteTool(), ctx, path="run.sh", content="#!/bin/sh\necho two\nexit 0\n")
    assert result.text == "wrote 26 bytes to run.sh"
    assert stat.S_IMODE(target.stat().st_mode) == 0o751
    assert result.render == [
        DiffDescriptor(
            path="run.sh",
            status="modified",
            hunks=[
                Hunk(
                    old_start=1,
                    old_lines=3,
                    new_start=1,
                    new_lines=3,
                    lines=[" #!/bin/sh", "-echo one", "+echo two", " exit 0"],
                )
            ],
        )
    ]
    assert sorted(p.name for p in workspace.iterdir()) == ["run.sh"]


async def test_writing_through_an_inside_symlink_keeps_the_link(
    workspace: Path, ctx: ToolContext
) -> None:
    (workspace / "real.txt").write_text("old\n")
    (workspace / "alias.txt").symlink_to("real.txt")
    result = await run(WriteTool(), ctx, path="alias.txt", content="new\n")
    assert result.details["path"] == "real.txt"
    assert (workspace / "alias.txt").is_symlink()
    assert (workspace / "real.txt").read_text() == "new\n"


async def test_a_failed_replace_leaves_the_old_file_and_no_temp(
    workspace: Path, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    (workspace / "keep.txt").write_text("precious\n")

    def refuse(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device", dst)

    monkeypatch.setattr(os, "replace", refuse)
    result = await run(WriteTool(), ctx, path="keep.txt", content="lost\n")
    assert result.is_error
    assert result.text.startswith("cannot write keep.txt: No space left on device")
    assert (workspace / "keep.txt").read_text() == "precious\n"
    assert sorted(p.name for p in workspace.iterdir()) == ["keep.txt"]


async def test_a_directory_is_not_overwritten(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "d").mkdir()
    result = await run(WriteTool(), ctx, path="d", content="x")
    assert (result.is_error, result.text) == (True, "d is a directory")


async def test_content_that_is_not_unicode_is_refused(workspace: Path, ctx: ToolContext) -> None:
    result = await run(WriteTool(), ctx, path="s.txt", content="bad \ud800")
    assert result.is_error
    assert result.text == "content is not valid Unicode: surrogates not allowed"
    assert not (workspace / "s.txt").exists()
