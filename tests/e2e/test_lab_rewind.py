"""Rewind and review in the Lab chat (real JupyterLab in chromium, a gateway agent): "Rewind to
here" in one tab restores the files and a second tab on the same agent shows the rewind too; the
agent's notebook, open with a person's unsaved edit, keeps that edit and says a rewind put the
file back; the second tab undoes the rewind. "Changes" renders a notebook's cells (not its JSON)
and reverts one hunk; a person's edit since the agent's makes the rewind show the three versions
and change nothing."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.conftest import save_screenshot
from tests.e2e.lab import LabServer
from tests.e2e.lab_page import LabPage

pytestmark = pytest.mark.e2e

TEXT = "".join(f"line {i}\n" for i in range(1, 21))
EDITED = TEXT.replace("line 2\n", "line two\n").replace("line 19\n", "line nineteen\n")
ALLOW = ["Edit(**)", "NotebookEdit(**)"]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _edit(old: str, new: str) -> dict[str, Any]:
    return {"name": "edit", "input": {"path": "a.py", "old_string": old, "new_string": new}}


@pytest.fixture
def project(lab: LabServer, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A folder under Lab's root with a.py and nb.ipynb, and an agent whose one turn edits two
    lines of a.py and the notebook's middle cell; (folder, notebook URL, agent id)."""
    name = f"rw-{request.node.name[-12:].strip('_')}"
    work = lab.root / name
    work.mkdir()
    (work / "a.py").write_text(TEXT)
    url = lab.notebook(f"{name}/nb.ipynb", "python3", ["x = 1", "y = 2", "z = 3"])
    notebook_edit = {
        "name": "notebook_edit",
        "input": {"path": "nb.ipynb", "operations": [
            {"op": "replace", "id": "cell-1", "source": "y = 20  # by the agent"}]},
    }  # fmt: skip
    steps = [
        {"text": "Editing.", "tool_calls": [
            _edit("line 2\n", "line two\n"), _edit("line 19\n", "line nineteen\n"), notebook_edit]},
        {"text": "Done editing."},
    ]  # fmt: skip
    script = tmp_path / f"{name}-script.json"
    script.write_text(json.dumps({"name": name, "steps": steps}))
    body = {
        "cwd": str(work),
        "model": f"scripted/{script}",
        "name": name,
        "permissions": {"allow": ALLOW},
    }
    agent = lab.api("POST", "/shard/api/agents", body)
    try:
        yield work, url, str(agent["id"])
    finally:
        lab.api("DELETE", f"/shard/api/agents/{agent['id']}")
        lab.shutdown_kernels()
        shutil.rmtree(work, ignore_errors=True)


def _run_turn(lab_page: LabPage, chat: Locator, work: Path) -> None:
    expect(chat.locator(".shard-composer-input")).to_be_enabled(timeout=60_000)
    lab_page.send(chat, "edit them")
    expect(chat.locator(".shard-msg-assistant").last).to_contain_text(
        "Done editing.", timeout=60_000
    )
    assert (work / "a.py").read_text() == EDITED


def _notebook_state(page: Page, path: str) -> dict[str, Any]:
    """The open notebook's cells as its document holds them, and whether it is dirty."""
    return page.evaluate(
        """(path) => {
          for (const w of window.jupyterapp.shell.widgets("main")) {
            const ctx = w.context;
            if (!ctx || ctx.path !== path) continue;
            return { dirty: ctx.model.dirty,
                     cells: ctx.model.sharedModel.cells.map((c) => c.getSource()) };
          }
          return null;
        }""",
        path,
    )


def test_rewind_in_the_chat_reaches_a_second_tab_and_keeps_a_dirty_notebook(
    lab: LabServer, page: Page, project: Any, request: pytest.FixtureRequest
) -> None:
    work, url, agent_id = project
    rel = f"{work.name}/nb.ipynb"
    original = {name: _sha(work / name) for name in ("a.py", "nb.ipynb")}
    other = page.context.new_page()
    first, second = LabPage(page, lab), LabPage(other, lab)
    try:
        page.goto(url)
        cells = page.locator(".jp-NotebookPanel .jp-Cell")
        expect(cells).to_have_count(3, timeout=90_000)
        page.wait_for_function(
            "() => window.jupyterapp.shell.currentWidget?.context?.isReady === true",
            timeout=60_000,
        )
        chat = first.open_agent(agent_id)
        second.open()
        other_chat = second.open_agent(agent_id)
        _run_turn(first, chat, work)
        page.wait_for_function(  # clean: it reloads with the agent's cell
            "(p) => window.jupyterapp.shell.widgets('main').some((w) => w.context?.path === p"
            " && w.context.model.sharedModel.cells[1].getSource().includes('by the agent'))",
            arg=rel,
            timeout=20_000,
        )

        # a person edits the cell the agent did not touch, and does not save
        page.evaluate(
            "(p) => { const w = window.jupyterapp.shell.widgets('main').find("
            "(w) => w.context?.path === p); window.jupyterapp.shell.activateById(w.id); }",
            rel,
        )
        mine = cells.nth(2).locator(".cm-content")
        mine.click()
        page.keyboard.press("End")
        page.keyboard.type("  # mine")
        expect(mine).to_have_text("z = 3  # mine")
        first.command("shard:open-agent", {"agent": agent_id})  # back to the chat tab

        turn = chat.locator(".shard-msg-user").filter(has_text="edit them")
        turn.locator(".shard-rewind-here").click()
        chooser = chat.locator(".shard-rewind-choose")
        expect(chooser).to_contain_text("Rewind to before this turn")
        chooser.locator(".shard-rewind-code").click()
        expect(chat.locator(".shard-rewind-result")).to_contain_text(
            "Rewound files", timeout=30_000
        )
        assert {name: _sha(work / name) for name in original} == original  # every byte

        for view in (chat, other_chat):  # every attached client sees the rewind
            marked = view.locator(".shard-command-item").filter(has_text="rewind (files)")
            expect(marked).to_contain_text("Rewound files", timeout=30_000)
            expect(view.locator(".shard-rewind-undo")).to_be_visible()

        notice = page.locator(".jp-NotebookPanel-toolbar .shard-disk-notice")
        expect(notice).to_have_text("⚠ put back by a rewind", timeout=20_000)
        expect(
            page.get_by_text("a rewind put it back as it was before entry").first
        ).to_be_visible()
        state = _notebook_state(page, rel)
        assert state["dirty"] is True
        assert state["cells"][2] == "z = 3  # mine"  # the person's edit is kept
        assert "# mine" not in (work / "nb.ipynb").read_text()
        save_screenshot(page, "e2e-lab-rewind-dirty-notebook.png")

        other_chat.locator(".shard-rewind-undo").click()  # the undo, from the second tab
        expect(other_chat.locator(".shard-rewind-result")).to_contain_text(
            "Rewound files", timeout=30_000
        )
        assert (work / "a.py").read_text() == EDITED
        assert "by the agent" in (work / "nb.ipynb").read_text()
        for view in (chat, other_chat):
            expect(
                view.locator(".shard-command-item").filter(has_text="rewind (files)")
            ).to_have_count(2, timeout=30_000)
        assert _notebook_state(page, rel)["cells"][2] == "z = 3  # mine"  # still kept
        save_screenshot(other, "e2e-lab-rewind-second-tab.png")
    except Exception:
        save_screenshot(page, f"{request.node.name}-failure.png")
        save_screenshot(other, f"{request.node.name}-second-tab-failure.png")
        raise
    finally:
        other.close()


def test_changes_render_notebook_cells_and_revert_one_hunk(
    lab: LabServer, page: Page, project: Any, request: pytest.FixtureRequest
) -> None:
    work, _, agent_id = project
    lab_page = LabPage(page, lab)
    try:
        lab_page.open()
        chat = lab_page.open_agent(agent_id)
        _run_turn(lab_page, chat, work)

        chat.locator(".shard-msg-user").filter(has_text="edit them").locator(
            ".shard-turn-changes"
        ).click()
        review = chat.locator(".shard-review")
        expect(review).to_contain_text("Changes in turn 1", timeout=30_000)
        code = review.locator('.shard-review-file[data-path="a.py"]')
        expect(code.locator(".shard-review-hunk")).to_have_count(2)
        cell = review.locator('.shard-review-file[data-path="nb.ipynb"] .shard-review-cell')
        expect(cell).to_have_count(1)
        expect(cell).to_have_attribute("data-cell-id", "cell-1")
        expect(cell).to_contain_text("cell cell-1 (code, modified)")
        expect(cell.locator(".shard-diff-del")).to_have_text("-y = 2")
        expect(cell.locator(".shard-diff-add")).to_have_text("+y = 20  # by the agent")
        expect(review).not_to_contain_text('"cell_type"')  # cells, never the notebook's JSON
        save_screenshot(page, "e2e-lab-review-notebook-cells.png")

        second = code.locator('.shard-review-hunk[data-hunk="2"]')
        second.locator(".shard-review-revert").click()
        expect(second.locator(".shard-review-state")).to_have_text("Reverted", timeout=30_000)
        assert (work / "a.py").read_text() == TEXT.replace("line 2\n", "line two\n")
        for view in (chat,):
            expect(view.locator(".shard-command-item").filter(has_text="rewind")).to_have_count(1)

        # a person's edit since the agent's: the rewind shows three versions, changes nothing
        (work / "a.py").write_text("line 1\nline two, said a person\n")
        chat.locator(".shard-msg-user").first.locator(".shard-rewind-here").click()
        chat.locator(".shard-rewind-choose .shard-rewind-code").click()
        conflict = chat.locator(".shard-rewind-conflict")
        expect(conflict).to_contain_text("Rewind refused: nothing was changed", timeout=30_000)
        expect(conflict).to_contain_text("Three versions")
        conflict.locator(".shard-rewind-cancel").click()
        expect(conflict).to_have_count(0)
        assert (work / "a.py").read_text() == "line 1\nline two, said a person\n"
        assert "by the agent" in (work / "nb.ipynb").read_text()  # nothing at all changed
    except Exception:
        save_screenshot(page, f"{request.node.name}-failure.png")
        raise
