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


def test_a_workflow_run_is_drawn_in_the_panel_and_its_question_answered_there(
    page: Page, lab: LabServer, tmp_path: Path
) -> None:
    scripts = {}
    for key, report in (("a", "first report"), ("c", "wrote c")):
        script = tmp_path / f"{key}.json"
        script.write_text(json.dumps({"name": key, "steps": [{"text": report}]}))
        scripts[key] = f"scripted/{script}"
    flow = tmp_path / "drawn.py"
    flow.write_text(
        "async def main(wf):\n"
        f"    await wf.agent('look around', model={scripts['a']!r})\n"
        "    wf.log('looked')\n"
        "    pick = await wf.ask('Which next?', ['b', 'c'])\n"
        f"    return await wf.agent(f'do {{pick}}', model={scripts['c']!r})\n"
    )
    lab_page = LabPage(page, lab)
    lab_page.open()
    lab_page.show_sidebar()
    run = lab.api("POST", "/shard/api/workflows", {"file": str(flow), "cwd": str(tmp_path)})
    drawn = lab_page.sidebar.locator(f".shard-workflow[data-run-id='{run['id']}']")
    try:
        expect(drawn.locator(".shard-workflow-name")).to_have_text(f"drawn.py ({run['id']})")
        steps = drawn.locator(".shard-workflow-step")
        expect(steps).to_have_count(2, timeout=90_000)  # the first agent's step and the log
        expect(steps.nth(0)).to_contain_text("look around → first report")
        expect(steps.nth(1)).to_contain_text("looked")
        agents = drawn.locator(".shard-workflow-agent")  # the agents it made, under it
        expect(agents).to_have_count(1)
        dialog = drawn.locator(".shard-ui-question")
        expect(dialog.locator(".shard-dialog-title")).to_have_text("Which next?")
        expect(drawn.locator(".shard-badge").first).to_have_text("running")
        save_screenshot(page, "e2e-lab-workflow-drawn.png")
        expect(agents.nth(0)).to_contain_text("look around")  # its task beside its name
        dialog.get_by_role("button", name="c", exact=True).click()
        expect(drawn.locator(".shard-workflow-line .shard-badge")).to_have_text(
            "completed", timeout=90_000
        )
        expect(drawn.locator(".shard-workflow-result")).to_have_text("wrote c")
        expect(steps).to_have_count(4)
        expect(steps.nth(2)).to_contain_text("Which next? → c (by ")  # who answered
        expect(steps.nth(2)).to_contain_text(lab_page.tab_label())
        expect(agents).to_have_count(2)
        expect(drawn.locator(".shard-ui-question")).to_have_count(0)
        save_screenshot(page, "e2e-lab-workflow-answered.png")
        ended = lab.api("GET", f"/shard/api/workflows/{run['id']}")
        assert (ended["state"], ended["result"]) == ("completed", "wrote c")
        assert lab_page.tab_label() in next(iter(ended["answered"].values()))

        # a step's agent, stopped once its job ended, opens again from its row in the list
        first = lab.api("GET", f"/shard/api/jobs/{ended['jobs'][0]}")["runs"][0]["agent_id"]
        row = lab_page.sidebar.locator(f".shard-agent-item[data-agent-id='{first}']")
        expect(row.locator(".shard-open")).to_have_text("Restart & open", timeout=60_000)
        row.locator(".shard-open").click()
        chat = page.locator(f"#shard-chat-{first}")
        expect(chat).to_contain_text("first report", timeout=60_000)  # its session, resumed
        save_screenshot(page, "e2e-lab-workflow-step-reopened.png")
    except Exception:
        save_screenshot(page, "e2e-lab-workflow-drawn-failed.png")
        raise
    finally:
        if lab.api("GET", f"/shard/api/workflows/{run['id']}")["state"] == "running":
            lab.api("POST", f"/shard/api/workflows/{run['id']}/cancel", {})
    lab.api("DELETE", f"/shard/api/agents/{first}")  # the reopened kernel stops with the test
