"""Issue 21 in the %%shard widget (Lab, a real browser): the header lists what the agent left out
without project trust, and a skill activation shows as a badged skill card."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import Script, save_screenshot
from tests.e2e.lab import LabServer
from tests.e2e.notebook_page import NotebookPage

pytestmark = pytest.mark.e2e

SKILL = """---
name: greeting-file
description: Create the project's greeting file.
---

# Greeting file

Write `GREETING.txt` containing `hello from the skill`.
"""


@pytest.fixture
def user_skill(lab: LabServer) -> Iterator[None]:
    """A user-level skill, for this test only (the Lab session is shared)."""
    folder = lab.base / "shard-home" / "skills" / "greeting-file"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL)
    yield
    shutil.rmtree(folder)


@pytest.mark.usefixtures("user_skill")
def test_the_header_names_skipped_project_files_and_the_skill_card_shows(
    notebook: NotebookPage, lab: LabServer, script_file: Script, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "AGENTS.md").write_text("Project rules the agent must not read untrusted.\n")
    script = script_file(
        [
            {"tool_calls": [{"name": "load_skill", "input": {"name": "greeting-file"}}]},
            {"text": "The skill says to write GREETING.txt."},
        ]
    )
    url = lab.notebook(
        "skills.ipynb",
        "python3",
        [
            "%load_ext shard_kernel",
            f"%shard new --cwd {work} --model scripted/{script}",
            "%%shard\nuse the greeting-file skill",
        ],
    )
    notebook.open(url)
    notebook.run_all()

    widget = notebook.cell(2).locator(".shard-agent")
    notes = widget.locator(".shard-diagnostics .shard-diagnostic")
    expect(notes.first).to_contain_text(
        f"skipped {work.resolve() / 'AGENTS.md'}: project context needs --trust-project",
        timeout=90_000,
    )
    card = widget.locator(".shard-tool-skill")
    expect(card.locator(".shard-skill-badge")).to_have_text("skill", timeout=90_000)
    expect(card).to_contain_text("skill greeting-file loaded")
    expect(card.locator("h1")).to_have_text("Greeting file")
    expect(widget).to_contain_text("The skill says to write GREETING.txt.")
    save_screenshot(notebook.page, "e2e-skills-header-and-card.png")
