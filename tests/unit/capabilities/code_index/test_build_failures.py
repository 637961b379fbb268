"""A background build that fails: the tools say so (not "being indexed" for ever), the next
question tries again once, a file asked about by path is still indexed, and `/index refresh`
after the fix clears it. (Killed halfway: tests/integration/test_code_index_resume.py.)"""

from __future__ import annotations

from pathlib import Path

from shard_core.capabilities.code_index import CodeIndexCapability
from shard_core.capabilities.code_index.tools import CodeOutlineTool, CodeSymbolTool
from shard_core.contracts import ToolContext


def _ctx(root: Path) -> ToolContext:
    return ToolContext(cwd=root, roots=[root], agent_id="a", session_id="s", call_id="c")


async def test_a_build_that_fails_says_so_tries_once_more_and_outlines_still_answer(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    (ws / "app").mkdir(parents=True)
    (ws / "app" / "core.py").write_text("class Engine:\n    def run(self) -> None:\n        pass\n")
    (ws / "vendor").mkdir()
    (ws / "vendor" / ".gitignore").write_text("build/\n!\n")  # a lone "!": not a pattern
    capability = CodeIndexCapability(ws, home=tmp_path / "home", server=None)
    symbol, ctx = CodeSymbolTool(capability.code), _ctx(capability.index.root)
    stopped = "indexing stopped (GitIgnorePatternError: Invalid git pattern: '!')"

    first = await symbol.execute({"name": "Engine"}, ctx)
    assert first.text == (
        f"no definition of or reference to 'Engine' in the index ({stopped}: the answers "
        "cover the 0 files indexed before that; the next question tries again)"
    )
    second = await symbol.execute({"name": "Engine"}, ctx)
    assert second.text == (
        f"no definition of or reference to 'Engine' in the index ({stopped}: the answers "
        "cover the 0 files indexed before that; a file asked about by path is still indexed, "
        "and `/index refresh` retries)"
    )
    assert capability.index._attempts == 2  # and no third build
    outline = await CodeOutlineTool(capability.code).execute({"path": "app/core.py"}, ctx)
    assert not outline.is_error
    assert "class Engine" in outline.text

    (ws / "vendor" / ".gitignore").write_text("build/\n")  # the person fixes it
    assert capability.index.refresh() == 0  # core.py was indexed when its outline was asked
    third = await symbol.execute({"name": "Engine"}, ctx)
    assert third.text.startswith("Engine: 1 definition, referenced in 0 files\n")
    assert "indexing stopped" not in third.text
