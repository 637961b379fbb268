"""With jupyter-collaboration (its own environment: tests/fixtures/rtc.py), an agent's
notebook_edit and notebook_run go through the server's shared document: the open view shows the
inserted cell and then its output at once, without a reload, the user's unsaved typing stays, and
the server saves the file."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.blocking.client import BlockingKernelClient
from playwright.sync_api import Page, expect

from tests.e2e.conftest import save_screenshot
from tests.e2e.lab import LabServer
from tests.fixtures.rtc import rtc_python

pytestmark = pytest.mark.e2e

NAME = "shared.ipynb"
LAB_APP_DIR = Path(sys.prefix) / "share" / "jupyter" / "lab"  # the project's built Lab


@pytest.fixture
def rtc_lab(tmp_path: Path) -> Iterator[LabServer]:
    python = rtc_python()
    if not isinstance(python, Path):
        pytest.fail(python)
    server = LabServer(
        tmp_path / "lab",
        {},
        python=str(python),
        extra_args=(f"--LabApp.app_dir={LAB_APP_DIR}",),
    )
    server.start()
    yield server
    assert server.stop() == [], "processes left running after Lab stopped"


def run(client: BlockingKernelClient, code: str) -> str:
    out: list[str] = []

    def hook(msg: dict[str, Any]) -> None:
        content = msg["content"]
        if msg["msg_type"] == "stream":
            out.append(content["text"])
        elif msg["msg_type"] == "error":
            out.append("\n".join(content["traceback"]))

    client.execute_interactive(code, output_hook=hook, timeout=120)
    return "".join(out)


def test_the_agents_cell_appears_live_and_the_users_typing_stays(
    rtc_lab: LabServer, page: Page, request: pytest.FixtureRequest
) -> None:
    url = rtc_lab.notebook(NAME, "python3", ["x = 1", "y = 2"])
    script = rtc_lab.base / "script.json"
    insert = {"op": "insert", "after": "cell-1", "source": "z = 3  # by the agent\nz * 14"}
    edit = {"path": NAME, "operations": [insert]}
    steps = [
        {"tool_calls": [{"name": "notebook_edit", "input": edit}]},
        {
            "expect": {
                "last_tool_result_contains": ["edited shared.ipynb (in the shared document"]
            },
            "tool_calls": [{"name": "notebook_run", "input": {"path": NAME, "from": "cell-1"}}],
        },
        {"expect": {"last_tool_result_contains": ["[result 2] 42"]}, "text": "Added and ran."},
    ]
    script.write_text(json.dumps({"name": "rtc", "steps": steps}))
    cells = page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell")
    client = BlockingKernelClient()
    try:
        page.goto(url)
        expect(cells).to_have_count(2, timeout=90_000)
        page.wait_for_function(
            "() => window.jupyterapp.shell.currentWidget?.context?.model?.collaborative === true",
            timeout=60_000,
        )
        first = cells.nth(0).locator(".cm-content")
        first.click()
        page.keyboard.press("End")
        page.keyboard.type(" + 40")

        client.load_connection_file(str(rtc_lab.kernel_connection_file(NAME)))
        client.start_channels()
        client.wait_for_ready(timeout=60)
        created = run(
            client,
            f"%load_ext shard_kernel\n%shard new --local --cwd {rtc_lab.root} "
            f"--model scripted/{script} --allow 'Edit(**/*.ipynb)' --allow NotebookRun",
        )
        assert "agent agent1" in created, created
        turn = run(client, "%%shard --wait\nadd a cell")
        assert "the turn ended" not in turn, turn

        expect(cells).to_have_count(3, timeout=20_000)
        expect(cells.nth(2)).to_contain_text("by the agent")
        expect(first).to_have_text("x = 1 + 40")
        expect(cells.nth(2).locator(".jp-OutputArea-output")).to_have_text(
            "42", timeout=20_000
        )  # the output reaches the page through the shared document: seconds under load
        expect(page.locator(".shard-disk-notice")).to_have_count(0)
        save_screenshot(page, "e2e-notebook-rtc-agent-cell.png")
        saved = rtc_lab.root / NAME
        for _ in range(100):  # the agent asked the server to save; the file follows
            if "by the agent" in saved.read_text():
                break
            page.wait_for_timeout(100)
        assert "by the agent" in saved.read_text()
    except Exception:
        save_screenshot(page, f"{request.node.name}-failure.png")
        raise
    finally:
        client.stop_channels()
        rtc_lab.shutdown_kernels()
