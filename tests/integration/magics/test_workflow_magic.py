"""`%shard workflow FILE` in a notebook's shell against a real gateway: the run starts there (a
durable job), its live view shows the question with a button per choice, a click answers it
over REST, and the view follows the step's agent (a real `shard` kernel playing a script) to
the run's end, saying who answered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell

from tests.integration.gateway.conftest import Server
from tests.integration.magics.conftest import magics, rest, wait_until

pytestmark = pytest.mark.integration

FLOW = """
async def main(wf):
    colour = await wf.ask("Colour?", ["red", "blue"])
    return await wf.agent(f"write {colour}.txt", model=wf.inputs["model"])
"""


def test_a_workflow_runs_live_in_the_notebook_and_its_question_is_answered_there(
    shell: InteractiveShell, gateway: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    call = {"name": "write", "input": {"path": str(work / "blue.txt"), "content": "blue\n"}}
    script = tmp_path / "blue.json"
    script.write_text(json.dumps({"name": "blue", "steps": [{"tool_calls": [call]},
                                                            {"text": "wrote blue"}]}))  # fmt: skip
    flow = tmp_path / "flow.py"
    flow.write_text(FLOW)
    rule = f"Write({work / 'blue.txt'})"
    shell.run_line_magic(
        "shard", f"workflow {flow} --input model=scripted/{script} --allow '{rule}'"
    )
    out = capsys.readouterr().out
    assert "%shard: error" not in out, out
    view = magics(shell).workflows[-1]
    assert f"workflow {view.run_id}: running in the gateway at {gateway.url}" in out

    shell.run_line_magic("shard", "dashboard")
    dashboard = magics(shell).remote.dashboards[-1].widget
    wait_until(lambda: len(view.question.children) == 2, 60, "the question's buttons")
    title, row = view.question.children
    assert "Colour?" in title.value
    assert [b.description for b in row.children] == ["red", "blue"]
    row.children[1].click()

    def listed_under_it() -> bool:  # the dashboard lists the run's agent, its step's agent under it
        rows = {a["id"]: a for a in dashboard.agents}
        mine = rows.get(view.record["agent_id"])
        return mine is not None and any(
            a.get("parent_agent_id") == mine["id"] for a in rows.values()
        )

    wait_until(listed_under_it, 60, "the dashboard's rows")

    wait_until(lambda: view.ended, 120, "the run's end")
    view.following.result(30)
    assert (view.record["state"], view.record["result"]) == ("completed", "wrote blue")
    assert "answered by notebook" in view.header.value
    assert "completed" in view.header.value.split("<br>")[1]  # its step's agent, followed
    assert view.question.children == ()
    assert (work / "blue.txt").read_text() == "blue\n"
    listed = rest(gateway, "GET", f"/shard/api/workflows/{view.run_id}")
    assert [s["kind"] for s in listed["steps"]] == ["ask", "agent"]
