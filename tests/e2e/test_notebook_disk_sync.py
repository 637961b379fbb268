"""An agent's notebook_edit on a notebook open in JupyterLab (no real-time collaboration): a
clean view reloads and shows the agent's cell; a view with unsaved edits keeps them and shows
"changed by the agent", and its Reload action brings the agent's version in."""

from __future__ import annotations

import asyncio
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from shard_core.contracts import ToolContext
from shard_core.types import JsonObject
from shard_kernel.notebook_tools import NotebookSetup
from shard_kernel.notebook_tools.edit_tool import NotebookEditTool
from tests.e2e.conftest import save_screenshot
from tests.e2e.lab import LabServer

pytestmark = pytest.mark.e2e

NAME = "agent-edits.ipynb"


def agent_edit(root: Path, *operations: JsonObject) -> None:
    """What the agent's notebook_edit call does: the real tool, on the file Lab has open."""
    cwd = Path(os.path.realpath(root))
    ctx = ToolContext(cwd=cwd, roots=[cwd], agent_id="agent", session_id="s", call_id="c")
    tool = NotebookEditTool(NotebookSetup())
    call = {"path": NAME, "operations": list(operations)}
    # Playwright's sync API owns this thread's event loop: the tool runs on its own thread.
    with ThreadPoolExecutor(1) as pool:
        result = pool.submit(lambda: asyncio.run(tool.execute(call, ctx))).result(60)
    assert not result.is_error, result.text


def test_clean_view_reloads_dirty_view_keeps_edits_and_says_so(
    lab: LabServer, page: Page, request: pytest.FixtureRequest
) -> None:
    url = lab.notebook(NAME, "python3", ["x = 1", "y = 2"])
    cells = page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell")
    try:
        page.goto(url)
        expect(cells).to_have_count(2, timeout=90_000)
        page.wait_for_function(
            "() => window.jupyterapp.shell.currentWidget?.context?.isReady === true",
            timeout=60_000,
        )

        agent_edit(lab.root, {"op": "insert", "after": "cell-1", "source": "z = 3  # by the agent"})
        expect(cells).to_have_count(3, timeout=20_000)
        expect(cells.nth(2)).to_contain_text("by the agent")

        first = cells.nth(0).locator(".cm-content")
        first.click()
        page.keyboard.press("End")
        page.keyboard.type(" + 40")
        expect(first).to_have_text("x = 1 + 40")
        agent_edit(lab.root, {"op": "insert", "after": "cell-1", "source": "w = 4  # again"})

        notice = page.locator(".jp-NotebookPanel-toolbar .shard-disk-notice")
        expect(notice).to_have_text("⚠ changed by the agent", timeout=20_000)
        expect(page.get_by_text("was changed by the agent on disk").first).to_be_visible()
        expect(cells).to_have_count(3)  # not reloaded: the user's edit is still there
        expect(first).to_have_text("x = 1 + 40")
        assert "x = 1 + 40" not in (lab.root / NAME).read_text()
        save_screenshot(page, "e2e-notebook-changed-by-the-agent.png")

        page.get_by_role("button", name="Reload from disk").first.click()
        expect(cells).to_have_count(4, timeout=20_000)
        expect(cells.nth(2)).to_contain_text("w = 4")
        expect(notice).to_have_count(0)
    except Exception:
        save_screenshot(page, f"{request.node.name}-failure.png")
        raise
    finally:
        lab.shutdown_kernels()
