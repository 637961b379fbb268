"""Shard outputs in notebooks with the Lab extension: a Launcher-started Shard notebook (running
card, the diff before approval, a coloured diff after, the agent in the sidebar), a saved notebook
rendered with no kernel in JupyterLab and Notebook 7, and a `%%shard` transcript that outlives
its kernel.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.axe import serious_violations
from tests.e2e.conftest import Script, save_screenshot
from tests.e2e.lab import REPO, LabServer
from tests.e2e.lab_page import PERMISSION_MIME, RENDER_MIME, LabPage
from tests.e2e.notebook_page import NotebookPage

pytestmark = pytest.mark.e2e

TRANSPARENT = ("rgba(0, 0, 0, 0)", "transparent")


def test_a_launcher_shard_notebook_renders_cards_and_a_coloured_diff_and_joins_the_sidebar(
    lab: LabServer, page: Page, shard_script: Script, request: pytest.FixtureRequest
) -> None:
    shard_script(
        [
            {
                "text": "Writing the note.",
                "tool_calls": [{"name": "write", "input": {"path": "note.txt", "content": "hi\n"}}],
            },
            {"text": "Wrote note.txt."},
        ]
    )
    lab_page = LabPage(page, lab)
    try:
        lab_page.open()
        page.locator('.jp-LauncherCard[title="Shard"]').first.click()
        editor = page.locator(".jp-Notebook .jp-Cell .cm-content").first
        editor.wait_for(timeout=60_000)
        page.wait_for_function(
            "() => window.jupyterapp.shell.currentWidget?.sessionContext?.session?.kernel"
            "?.status === 'idle'",
            timeout=90_000,
        )
        editor.click()
        page.keyboard.type("write note.txt")
        page.keyboard.press("Shift+Enter")

        cell = page.locator(".jp-Notebook .jp-Cell").first
        card = cell.locator(f'.jp-OutputArea-output[data-mime-type="{RENDER_MIME}"] .shard-tool')
        expect(card.first).to_contain_text("write", timeout=60_000)
        expect(card.first.locator(".shard-tool-status")).to_contain_text("running · 0:")
        prompt = cell.locator(f'.jp-OutputArea-output[data-mime-type="{PERMISSION_MIME}"]')
        expect(prompt.locator(".shard-permission-preview .shard-diff-add")).to_have_text("+hi")
        save_screenshot(page, "e2e-launcher-1-asked.png")
        prompt.get_by_role("button", name="Allow once").click()

        expect(cell).to_contain_text("Wrote note.txt.", timeout=30_000)
        expect(prompt.locator(".shard-dialog-footer")).to_have_text("✓ allowed once — by you")
        added = card.first.locator(".shard-diff-add")
        expect(added).to_have_text("+hi")
        colour = added.evaluate("el => getComputedStyle(el).backgroundColor")
        assert colour not in TRANSPARENT, colour
        expect(card.first.locator(".shard-tool-status")).to_have_text("done")
        assert (lab.workspace / "note.txt").read_text() == "hi\n"

        path = str(page.evaluate("() => window.jupyterapp.shell.currentWidget.context.path"))
        lab_page.show_sidebar()
        row = lab_page.agent_row(Path(path).stem)  # named after the notebook
        expect(row).to_be_visible(timeout=15_000)
        expect(row.locator(".shard-status-badge")).to_have_text("idle")
        save_screenshot(page, "e2e-launcher-2-done-and-sidebar.png")
    except Exception:
        save_screenshot(page, f"{request.node.name}-failure.png")
        raise
    finally:
        lab.shutdown_kernels()


@pytest.fixture
def saved_notebook(lab: LabServer, tmp_path: Path) -> str:
    """A notebook a `shard batch` run executed (an edit a rule allowed, a write the headless
    policy denied), saved without a kernelspec: opening it starts no kernel."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "greet.py").write_text('def greet(name):\n    return "Hello " + nam\n')
    script = tmp_path / "batch-script.json"
    edit = {"path": "greet.py", "old_string": "+ nam\n", "new_string": "+ name\n"}
    steps = [
        {"text": "Fixing greet.py.", "tool_calls": [{"name": "edit", "input": edit}]},
        {"text": "Fixed."},
        {"tool_calls": [{"name": "write", "input": {"path": "new.txt", "content": "x\n"}}]},
        {"text": "The write was refused."},
    ]
    script.write_text(json.dumps({"name": "batch", "steps": steps}))
    source = tmp_path / "tasks.ipynb"
    cells = [
        {"cell_type": "code", "id": f"c{i}", "source": text, "metadata": {}, "outputs": []}
        | {"execution_count": None}
        for i, text in enumerate(["fix greet.py", "write new.txt"])
    ]
    spec = {"name": "shard", "display_name": "Shard", "language": "shard"}
    source.write_text(
        json.dumps(
            {"nbformat": 4, "nbformat_minor": 5, "metadata": {"kernelspec": spec}, "cells": cells}
        )
    )
    done = tmp_path / "done.ipynb"
    argv = [sys.executable, "-m", "shard_kernel.cli", "batch", str(source), "-o", str(done)]
    argv += ["--model", f"scripted/{script}", "--cwd", str(work), "--allow", "Edit(greet.py)"]
    batch = subprocess.run(argv, env=lab.env, capture_output=True, text=True, timeout=120)
    assert batch.returncode == 3, batch.stdout + batch.stderr  # the write is denied: blocked
    notebook = json.loads(done.read_text())
    notebook["metadata"].pop("kernelspec", None)
    notebook["metadata"].pop("language_info", None)
    (lab.root / "saved.ipynb").write_text(json.dumps(notebook))
    return "saved.ipynb"


def _check_saved_outputs(page: Page) -> None:
    renders = page.locator(f'.jp-OutputArea-output[data-mime-type="{RENDER_MIME}"]')
    expect(renders.locator(".shard-diff-add")).to_have_text('+    return "Hello " + name')
    expect(renders.locator(".shard-diff-del")).to_have_text('-    return "Hello " + nam')
    expect(renders.filter(has_text="The write was refused.")).to_have_count(1)
    prompt = page.locator(f'.jp-OutputArea-output[data-mime-type="{PERMISSION_MIME}"]')
    expect(prompt.locator(".shard-tool-name")).to_have_text("write")
    expect(prompt.get_by_role("button")).to_have_count(0)  # no kernel: nothing to answer
    assert page.locator('.jp-OutputArea-output[data-mime-type="text/plain"]').count() == 0


def _dismiss_kernel_dialog(page: Page) -> None:
    """A notebook without a kernelspec asks which kernel; choose none."""
    button = page.locator(".jp-Dialog").get_by_role("button", name="No Kernel")
    try:
        button.wait_for(timeout=20_000)
    except Exception:
        return  # this front end did not ask
    button.click()


def test_a_saved_notebook_renders_with_no_kernel_in_lab(
    lab: LabServer, page: Page, saved_notebook: str, request: pytest.FixtureRequest
) -> None:
    before = {k["id"] for k in lab.api("GET", "/api/kernels")}
    try:
        page.goto(f"{lab.url}/lab/tree/{saved_notebook}?reset&token={lab.token}")
        _dismiss_kernel_dialog(page)
        _check_saved_outputs(page)
        started = {k["id"] for k in lab.api("GET", "/api/kernels")} - before
        assert started == set(), "opening the saved notebook started a kernel"
        save_screenshot(page, "e2e-saved-notebook-lab.png")
    except Exception:
        save_screenshot(page, f"{request.node.name}-failure.png")
        raise


def test_a_saved_notebook_renders_with_no_kernel_in_notebook_7(
    lab: LabServer, page: Page, saved_notebook: str, request: pytest.FixtureRequest
) -> None:
    try:
        page.goto(f"{lab.url}/notebooks/{saved_notebook}?token={lab.token}")
        page.locator(".jp-Notebook").wait_for(timeout=90_000)
        _dismiss_kernel_dialog(page)
        _check_saved_outputs(page)
        save_screenshot(page, "e2e-saved-notebook-notebook7.png")
    except Exception:
        save_screenshot(page, f"{request.node.name}-failure.png")
        raise


def test_a_shard_cell_keeps_its_transcript_after_the_kernel_is_gone(
    lab: LabServer, notebook: NotebookPage, script_file: Script, tmp_path: Path
) -> None:
    script = script_file([{"text": "Snapshot me, please."}])
    url = lab.notebook(
        "durable.ipynb",
        "python3",
        [
            "%load_ext shard_kernel",
            f"%shard new --local --cwd {tmp_path} --model scripted/{script}",
            "%%shard --wait\nsay something worth keeping",
        ],
    )
    notebook.open(url)
    notebook.run_all()
    cell = notebook.cell(2)
    expect(cell.locator(".shard-agent")).to_contain_text("Snapshot me, please.", timeout=60_000)
    notebook.page.wait_for_function(
        "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status"
        " === 'idle'"
    )
    notebook.save()
    saved = json.loads((lab.root / "durable.ipynb").read_text())
    [bundle] = [o["data"] for o in saved["cells"][2]["outputs"] if RENDER_MIME in o.get("data", {})]
    assert "say something worth keeping" in "".join(bundle["text/plain"])

    lab.shutdown_kernels()  # the widget's model dies with its kernel
    notebook.page.goto(f"{lab.url}/lab/tree/durable.ipynb?reset&token={lab.token}")
    snapshot = notebook.cell(2).locator(".shard-snapshot")
    expect(snapshot).to_contain_text("say something worth keeping", timeout=60_000)
    expect(snapshot).to_contain_text("Snapshot me, please.")
    expect(notebook.cell(2)).not_to_contain_text("model not found")
    save_screenshot(notebook.page, "e2e-durable-transcript.png")


def test_notebook_7_has_the_sidebar_and_the_agent_view_beside_a_shard_notebook(
    lab: LabServer, page: Page, shard_script: Script, request: pytest.FixtureRequest
) -> None:
    shard_script([{"text": "Hello from Notebook 7."}])
    lab.notebook("seven.ipynb", "shard", ["say hello"])
    try:
        page.goto(f"{lab.url}/notebooks/seven.ipynb?token={lab.token}")
        page.locator(".jp-Notebook").wait_for(timeout=90_000)
        agent_button = page.locator(".shard-agent-button")
        expect(agent_button).to_be_visible(timeout=60_000)  # shown for a Shard notebook
        agent_button.click()
        chat = page.locator(".shard-chat")
        expect(chat).to_be_visible(timeout=60_000)
        # Notebook 7's side panel shows no tab: the chat names its agent itself, seen and heard
        expect(chat.get_by_role("heading", name="Shard: seven")).to_be_visible()
        expect(page.get_by_role("region", name="Shard: seven")).to_be_visible()
        chat.locator(".shard-composer-input").fill("say hello")
        chat.locator(".shard-composer-input").press("Enter")
        expect(chat).to_contain_text("Hello from Notebook 7.", timeout=60_000)
        assert serious_violations(page, ".shard-chat") == []

        page.get_by_role("menuitem", name="View").click()
        page.locator(".lm-Menu-itemLabel", has_text="Left Sidebar").first.hover()
        page.locator(".lm-Menu-itemLabel", has_text="Show Shard agents").first.click()
        sidebar = page.locator("#shard-agents")
        expect(sidebar).to_be_visible()
        row = sidebar.locator(".shard-agent-item").filter(has_text="seven")
        expect(row.locator(".shard-status-badge")).to_have_text("idle", timeout=15_000)
        save_screenshot(page, "e2e-notebook7-sidebar-and-agent.png")
    except Exception:
        save_screenshot(page, f"{request.node.name}-failure.png")
        raise
    finally:
        lab.shutdown_kernels()


def test_the_quickstart_opened_in_lab_plays_its_own_script(
    lab: LabServer, notebook: NotebookPage, request: pytest.FixtureRequest
) -> None:
    """What Binder does: JupyterLab opens notebooks/01-quickstart.ipynb and runs it; the kernel
    Lab starts takes the notebook's `metadata.shard` (its script and rules) through adoption."""
    demo = lab.root / "demo"
    shutil.copytree(REPO / "notebooks", demo)
    notebook.open(f"{lab.url}/lab/tree/demo/01-quickstart.ipynb?reset&token={lab.token}")
    notebook.run_all()
    first = notebook.cell(1)
    expect(first).to_contain_text("These replies are scripted", timeout=60_000)
    fixed = notebook.cell(3)
    expect(fixed).to_contain_text("All 4 tests pass.", timeout=60_000)
    expect(fixed.locator(".shard-diff-add")).to_have_count(1)
    project = demo / "projects" / "01-temperature" / "temperature.py"
    assert "+ 32" in project.read_text()
    save_screenshot(notebook.page, "e2e-quickstart-in-lab.png")
