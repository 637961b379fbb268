"""A markdown prompt command in the Lab chat tab: the composer's `/` menu offers it (its
namespace, argument hint and description), Tab completes it, and sending it runs a turn whose
prompt is the expanded body."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import save_screenshot
from tests.e2e.lab import LabServer
from tests.e2e.lab_page import LabPage

pytestmark = pytest.mark.e2e

COMMIT = """---
description: Commit the staged work
argument-hint: MESSAGE
---
Write a commit for the staged work with the message: $ARGUMENTS"""


@pytest.fixture
def commit_agent(lab: LabServer, tmp_path: Path) -> Iterator[str]:
    """An agent whose SHARD_HOME has `commands/git/commit.md` (removed again afterwards)."""
    command = lab.base / "shard-home" / "commands" / "git" / "commit.md"
    command.parent.mkdir(parents=True, exist_ok=True)
    command.write_text(COMMIT, encoding="utf-8")
    work = tmp_path / "committer"
    work.mkdir()
    script = tmp_path / "committer-script.json"
    script.write_text(json.dumps({"name": "committer", "steps": [{"text": "Committed."}]}))
    body = {"cwd": str(work), "model": f"scripted/{script}", "name": "committer"}
    agent = lab.api("POST", "/shard/api/agents", body)
    try:
        yield str(agent["id"])
    finally:
        command.unlink(missing_ok=True)
        lab.api("DELETE", f"/shard/api/agents/{agent['id']}")


def test_the_composer_menu_completes_a_prompt_command_and_sends_it(
    page: Page, lab: LabServer, commit_agent: str, request: pytest.FixtureRequest
) -> None:
    lab_page = LabPage(page, lab)
    try:
        lab_page.open()
        chat = lab_page.open_agent(commit_agent)
        box = chat.locator(".shard-composer-input")
        expect(box).to_be_enabled(timeout=60_000)

        box.fill("")
        box.press_sequentially("/")  # the menu asks the agent for its commands
        menu = chat.locator(".shard-slash-menu")
        item = menu.locator('li[data-command="/git:commit"]')
        expect(item).to_be_visible(timeout=30_000)
        box.press_sequentially("git:c")
        expect(menu.locator("li")).to_have_count(1)
        expect(item).to_have_text("/git:commit MESSAGE — Commit the staged work")
        box.press("Tab")
        expect(box).to_have_value("/git:commit")
        expect(menu).to_be_hidden()

        box.press_sequentially(" fix the typo")
        box.press("Enter")
        sent = "Write a commit for the staged work with the message: fix the typo"
        expect(chat.locator(".shard-msg-user").filter(has_text=sent)).to_be_visible(timeout=30_000)
        expect(chat.locator(".shard-msg-assistant").last).to_contain_text(
            "Committed.", timeout=30_000
        )
        save_screenshot(page, "lab-chat-prompt-command.png")
    except Exception:
        save_screenshot(page, f"{request.node.name}-failure.png")
        raise
