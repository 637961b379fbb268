"""An MCP tool in the %%shard widget: the dialog shows the server tool's whole description and
schema, the person allows it, and the real server's answer renders in the transcript."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import Script, save_screenshot
from tests.e2e.lab import LabServer
from tests.e2e.notebook_page import NotebookPage

pytestmark = pytest.mark.e2e

TIME_SERVER = str(Path(sys.executable).parent / "mcp-server-time")


@pytest.fixture
def user_mcp_config(lab: LabServer) -> Iterator[None]:
    """config.json with an MCP server, for this test only (the Lab session is shared)."""
    path = lab.base / "xdg" / "shard" / "config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": {"time": {"command": TIME_SERVER}}}))
    yield
    path.unlink()


@pytest.mark.usefixtures("user_mcp_config")
def test_the_widget_asks_with_the_mcp_description_and_renders_the_answer(
    notebook: NotebookPage, lab: LabServer, script_file: Script, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    call = {"name": "mcp__time__get_current_time", "input": {"timezone": "Europe/Paris"}}
    script = script_file([{"tool_calls": [call]}, {"text": "That is the time in Paris."}])
    url = lab.notebook(
        "mcp.ipynb",
        "python3",
        [
            "%load_ext shard_kernel",
            f"%shard new --cwd {work} --model scripted/{script}",
            "%%shard\nwhat time is it in Paris?",
        ],
    )
    notebook.open(url)
    notebook.run_all()

    widget = notebook.cell(2).locator(".shard-agent")
    dialog = widget.locator(".shard-permission")
    dialog.wait_for(timeout=90_000)
    expect(dialog.locator(".shard-tool-name")).to_have_text("mcp__time__get_current_time")
    preview = dialog.locator(".shard-permission-preview")
    expect(preview).to_contain_text("of server 'time' (user config")
    expect(preview).to_contain_text("Get current time in a specific timezone")
    expect(preview).to_contain_text("IANA timezone name")  # the schema, in full
    save_screenshot(notebook.page, "e2e-mcp-1-permission-dialog.png")

    dialog.get_by_role("button", name="Allow once").click()
    # the server's first call is slow (seconds: it loads its timezone data); the call's card
    # shows its input ('"timezone": "Europe/Paris"') while it runs, so wait on the reply after it
    expect(widget).to_contain_text('"timezone": "Europe/Paris"', timeout=120_000)
    expect(widget).to_contain_text("That is the time in Paris.", timeout=120_000)
    save_screenshot(notebook.page, "e2e-mcp-2-result.png")
