"""`%shard dashboard` in a Python notebook: the gateway's agents listed, Attach opens a widget.

Lab itself is the gateway here (the extension is enabled in its config); the notebook's kernel
finds it through Jupyter's runtime files, as it would on a user's machine.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import save_screenshot
from tests.e2e.lab import LabServer
from tests.e2e.notebook_page import NotebookPage

pytestmark = pytest.mark.e2e


def test_dashboard_lists_an_agent_and_attach_opens_its_widget(
    lab: LabServer, notebook: NotebookPage, tmp_path: Path
) -> None:
    script = tmp_path / "agent-script.json"
    script.write_text(json.dumps({"name": "e2e", "steps": [{"text": "Ready."}]}))
    work = tmp_path / "work"
    work.mkdir()
    agent = lab.api(
        "POST",
        "/shard/api/agents",
        {"cwd": str(work), "model": f"scripted/{script}", "name": "dash-e2e"},
    )
    try:
        url = lab.notebook(
            "dashboard.ipynb", "python3", ["%load_ext shard_kernel", "%shard dashboard"]
        )
        notebook.open(url)
        notebook.run_all()

        dashboard = notebook.cell(1).locator(".shard-dashboard")
        row = dashboard.locator(".shard-agent-row").filter(has_text="dash-e2e")
        expect(row).to_contain_text(agent["id"], timeout=60_000)
        expect(row).to_contain_text("running")
        row.get_by_role("button", name="Attach").click()

        widget = notebook.cell(1).locator(".shard-agent")
        expect(widget).to_be_visible(timeout=60_000)
        # a scripted model by its script's name; the whole path on hover
        expect(widget.locator(".shard-model")).to_have_text(f"scripted: {script.name}")
        expect(widget.locator(".shard-model")).to_have_attribute("title", str(script))
        expect(dashboard.locator(".shard-command-notice")).to_have_text("")
        save_screenshot(notebook.page, "e2e-dashboard-attach.png")
        # the notebook's kernel is attached to the agent's kernel: the agent reports its
        # clients once they settle (CLIENTS_SETTLE after the attach), so the list catches up
        clients = _clients_within(lab, agent["id"], seconds=15.0)
        assert clients >= 1, "the registry never counted the notebook's kernel as a client"
    finally:
        lab.api("DELETE", f"/shard/api/agents/{agent['id']}")


def _clients_within(lab: LabServer, agent_id: str, *, seconds: float) -> int:
    """The registry's client count, polled until it is at least one or `seconds` pass."""
    deadline = time.monotonic() + seconds
    while True:
        clients = int(lab.api("GET", f"/shard/api/agents/{agent_id}")["clients"])
        if clients >= 1 or time.monotonic() > deadline:
            return clients
        time.sleep(0.1)
