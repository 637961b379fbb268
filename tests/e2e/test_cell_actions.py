"""Cell actions in an ordinary Python notebook, in JupyterLab and Notebook 7: a cell raising
ZeroDivisionError gets "Fix with Shard"; the folder's agent (made on first use) gets the cell
and its traceback, proposes a cell diff with propose_cell_edit, and Accept changes that cell in
the open notebook — after a re-diff when the person changed the cell meanwhile — keeping unsaved
edits elsewhere, undoably."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import Script, save_screenshot
from tests.e2e.lab import LabServer

pytestmark = pytest.mark.e2e

NAME = "divide.ipynb"
BROKEN = "total = 10\nprint(total / 0)"
FIXED = "total = 10\ncount = 2\nprint(total / count)"


def _logs(lab: LabServer, folder: Path) -> list[Path]:
    """The session logs of the agents of `folder` (each test has a folder, so a fresh agent:
    a killed agent stays listed, stopped, and a folder's next action would start it again)."""
    home = Path(lab.env["SHARD_HOME"])
    agents = lab.api("GET", "/shard/api/agents")["agents"]
    ids = [a["id"] for a in agents if a["cwd"] == str(folder)]
    return [p for i in ids for p in home.glob(f"agents/{i}/sessions/*.jsonl")]


def _user_texts(lab: LabServer, folder: Path) -> list[str]:
    texts: list[str] = []
    for log in _logs(lab, folder):
        for line in log.read_text().splitlines():
            entry = json.loads(line)
            details = entry.get("details", {})
            message = details.get("message", {}) if entry.get("type") == "message" else {}
            if message.get("role") == "user" and not details.get("context"):
                texts += [b["text"] for b in message["content"] if b.get("type") == "text"]
    return texts


@pytest.fixture
def folder_agents(lab: LabServer) -> Iterator[None]:
    """The agents the cell action makes in the notebooks' folder end with the test."""
    before = {a["id"] for a in lab.api("GET", "/shard/api/agents")["agents"]}
    yield
    for agent in lab.api("GET", "/shard/api/agents")["agents"]:
        if agent["id"] not in before:
            lab.api("DELETE", f"/shard/api/agents/{agent['id']}")


def _show_notebook(page: Page, app: str) -> None:
    """In Lab the chat took the main area's tab: bring the notebook's back (Notebook 7 shows
    the chat beside it)."""
    if app == "lab":
        page.locator(".lm-TabBar-tab", has_text=NAME).first.click()


def _show_chat(page: Page, app: str) -> None:
    if app == "lab":
        page.locator(".lm-TabBar-tab", has_text="Shard:").first.click()


@pytest.mark.parametrize("app", ["lab", "notebook7"])
def test_fix_with_shard_proposes_a_cell_diff_that_accept_applies(
    app: str,
    lab: LabServer,
    page: Page,
    shard_script: Script,
    folder_agents: None,
    request: pytest.FixtureRequest,
) -> None:
    shard_script(
        [
            {
                "text": "total / 0 divides by zero; dividing by a count instead.",
                "tool_calls": [
                    {
                        "name": "propose_cell_edit",
                        "input": {
                            "path": NAME,
                            "cell_id": "cell-0",
                            "source": FIXED,
                            "summary": "Divide by a count, not by zero.",
                        },
                    }
                ],
            },
            {"text": "Accept the diff to apply it."},
        ]
    )
    folder = lab.root / f"fix-{app}"
    folder.mkdir()
    url = lab.notebook(f"{folder.name}/{NAME}", "python3", [BROKEN, "other = 1"])
    if app == "notebook7":
        url = f"{lab.url}/notebooks/{folder.name}/{NAME}?token={lab.token}"
    cells = page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell")
    try:
        page.goto(url)
        expect(cells).to_have_count(2, timeout=90_000)
        # the debugger's toolbar button is enabled once the kernel is connected and has said
        # what it supports (Lab and Notebook 7; the execution indicator says idle before that)
        ready = '.jp-NotebookPanel-toolbar .jp-DebuggerBugButton[title="Enable Debugger"]'
        page.locator(ready).first.wait_for(state="attached", timeout=90_000)
        cells.nth(0).locator(".cm-content").click()
        page.keyboard.press("Shift+Enter")
        expect(cells.nth(0).locator(".jp-OutputArea-output")).to_contain_text(
            "ZeroDivisionError", timeout=60_000
        )
        # unsaved work elsewhere in the notebook
        other = cells.nth(1).locator(".cm-content")
        other.click()
        page.keyboard.press("End")
        page.keyboard.type(" + 40")
        expect(other).to_have_text("other = 1 + 40")

        cells.nth(0).click(button="right")
        expect(page.locator(".lm-Menu-itemLabel", has_text="Fix with Shard")).to_be_visible()
        page.keyboard.press("Escape")
        fix = cells.nth(0).locator(".shard-cell-action-bar .shard-fix-cell")
        expect(fix).to_be_visible()
        save_screenshot(page, f"e2e-cell-fix-button-{app}.png")
        fix.click()

        proposal = page.locator(".shard-chat .shard-cell-edit")
        expect(proposal).to_be_visible(timeout=120_000)
        expect(proposal.locator(".shard-diff-del")).to_contain_text("print(total / 0)")
        expect(proposal.locator(".shard-diff-add").first).to_contain_text("count = 2")
        expect(proposal).to_contain_text("Divide by a count, not by zero.")
        sent = next(t for t in _user_texts(lab, folder) if "propose_cell_edit" in t)
        assert "ZeroDivisionError" in sent  # the traceback went with the cell
        assert f'<cell notebook="{NAME}" id="cell-0"' in sent
        assert BROKEN in sent
        save_screenshot(page, f"e2e-cell-fix-proposal-{app}.png")

        # the person changes the cell before accepting: re-diffed, not overwritten
        _show_notebook(page, app)
        first = cells.nth(0).locator(".cm-content")
        first.click()
        page.keyboard.press("Control+End")
        page.keyboard.type("  # mine")
        expect(first).to_contain_text("print(total / 0)  # mine")
        _show_chat(page, app)
        proposal.get_by_role("button", name="Accept").click()
        expect(proposal.locator(".shard-cell-edit-state")).to_contain_text("changed since")
        expect(proposal.locator(".shard-diff-del")).to_contain_text("# mine")

        proposal.get_by_role("button", name="Accept").click()
        expect(proposal.locator(".shard-cell-edit-state")).to_contain_text("Accepted")
        expect(proposal.get_by_role("button", name="Accept")).to_have_count(0)
        save_screenshot(page, f"e2e-cell-fix-accepted-{app}.png")
        _show_notebook(page, app)
        expect(first).to_have_text(FIXED.replace("\n", ""))  # CodeMirror's lines, joined
        assert first.inner_text() == FIXED
        other = cells.nth(1).locator(".cm-content")
        expect(other).to_have_text("other = 1 + 40")  # the unsaved edit is kept
        on_disk = json.loads((folder / NAME).read_text())["cells"]
        assert "".join(on_disk[1]["source"]) == "other = 1"  # nothing was saved behind its back

        # undoable: the cell's own undo takes the change back
        first.click()
        page.keyboard.press("Control+z")
        expect(first).to_contain_text("print(total / 0)  # mine")

        deadline = time.monotonic() + 30  # the agent heard of the decision
        while not any(
            "accepted your proposed change to cell cell-0" in line
            for log in _logs(lab, folder)
            for line in log.read_text().splitlines()
        ):
            assert time.monotonic() < deadline, "the agent was not told of the Accept"
            time.sleep(0.2)
    except Exception:
        save_screenshot(page, f"{request.node.name}-failure.png")
        raise
    finally:
        lab.shutdown_kernels()


@pytest.mark.parametrize("how", ["ctrl_g", "toolbar"])
def test_ctrl_g_generates_a_cell_as_a_diff_to_accept(
    how: str,
    lab: LabServer,
    page: Page,
    shard_script: Script,
    folder_agents: None,
    request: pytest.FixtureRequest,
) -> None:
    generated = "squares = [n * n for n in range(10)]\nprint(sum(squares))"
    shard_script(
        [
            {
                "text": "A list comprehension, then its sum.",
                "tool_calls": [
                    {
                        "name": "propose_cell_edit",
                        "input": {"path": "gen.ipynb", "cell_id": "cell-0", "source": generated},
                    }
                ],
            },
            {"text": "Accept it to put it in the cell."},
        ]
    )
    folder = lab.root / f"generate-{how}"  # a folder, so a folder agent, of its own
    folder.mkdir()
    url = lab.notebook(
        f"{folder.name}/gen.ipynb", "python3", ["# the sum of the first ten squares"]
    )
    cells = page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell")
    try:
        page.goto(url)
        expect(cells).to_have_count(1, timeout=90_000)
        editor = cells.nth(0).locator(".cm-content")
        editor.click()
        if how == "ctrl_g":
            page.keyboard.press("Control+g")  # in the cell's editor
        else:
            page.locator(".jp-NotebookPanel-toolbar .shard-generate-button").click()
        dialog = page.locator(".jp-Dialog")
        expect(dialog).to_contain_text("Generate this cell with Shard")
        dialog.locator("input").fill("sum the squares of 0 to 9")
        dialog.get_by_role("button", name="Ok").click()

        proposal = page.locator(".shard-chat .shard-cell-edit")
        expect(proposal).to_be_visible(timeout=120_000)
        expect(proposal.locator(".shard-diff-del")).to_contain_text("# the sum of the first")
        sent = next(t for t in _user_texts(lab, folder) if "gen.ipynb" in t)
        assert sent.startswith("Write the code for this cell of gen.ipynb: sum the squares of 0")
        proposal.get_by_role("button", name="Accept").click()
        expect(proposal.locator(".shard-cell-edit-state")).to_contain_text("Accepted")
        page.locator(".lm-TabBar-tab", has_text="gen.ipynb").first.click()
        expect(editor).to_contain_text("print(sum(squares))")
        assert editor.inner_text() == generated
    except Exception:
        save_screenshot(page, f"{request.node.name}-failure.png")
        raise
    finally:
        lab.shutdown_kernels()
