"""A gateway workflow run in the Lab sidebar (Chromium): its own agent appears from the pushed
events as soon as the run starts, and its step's agent is listed under it (a child row) while
the step runs, without a reload."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import save_screenshot
from tests.e2e.lab import LabServer
from tests.e2e.lab_page import LabPage

pytestmark = pytest.mark.e2e


def test_a_workflows_agents_are_listed_under_it(page: Page, lab: LabServer, tmp_path: Path) -> None:
    script = tmp_path / "slow.json"
    script.write_text(json.dumps({"name": "slow", "steps": [{"text": "done", "delay": 20}]}))
    flow = tmp_path / "listed.py"
    flow.write_text(
        f"async def main(wf):\n    return await wf.agent('wait', model='scripted/{script}')\n"
    )
    lab_page = LabPage(page, lab)
    lab_page.open()
    lab_page.show_sidebar()
    run = lab.api("POST", "/shard/api/workflows", {"file": str(flow), "cwd": str(tmp_path)})
    try:
        parent = lab_page.agent_row(f"workflow listed.py ({run['id']})")
        expect(parent).to_be_visible(timeout=15_000)
        name = page.locator(f".shard-agent-name[title*='{run['id']}']")
        child = lab_page.sidebar.locator(".shard-agent-child").filter(has=name)
        expect(child).to_be_visible(timeout=60_000)  # the step's agent, named after its parent
        expect(child.locator(".shard-agent-name")).to_contain_text("↳ ")
        assert child.get_attribute("data-depth") == "1"
        save_screenshot(page, "e2e-lab-workflow.png")
    finally:
        lab.api("POST", f"/shard/api/workflows/{run['id']}/cancel", {})
    # the cancel stops the step's job; its kernel is gone before the test ends (a kernel still
    # starting when the Lab stops would outlive it)
    agent_id = run["agent_id"]
    deadline = time.monotonic() + 60
    while not _settled(lab, agent_id):
        assert time.monotonic() < deadline, lab.api("GET", f"/shard/api/jobs?parent={agent_id}")
        time.sleep(0.2)


def _settled(lab: LabServer, agent_id: str) -> bool:
    jobs = lab.api("GET", f"/shard/api/jobs?parent={agent_id}")["jobs"]
    if not jobs or any(j["state"] in ("queued", "running") for j in jobs):
        return False
    children = {r["agent_id"] for j in jobs for r in j["runs"]}
    agents = lab.api("GET", "/shard/api/agents")["agents"]
    return all(a["runtime_state"] == "stopped" for a in agents if a["id"] in children)
