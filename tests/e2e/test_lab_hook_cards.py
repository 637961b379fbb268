"""A command hook's run in the Lab chat tab: the card (event, tool, command, decision, how it
ended, the hook's message) appears in the transcript of a real agent kernel's turn."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import save_screenshot
from tests.e2e.lab import LabServer
from tests.e2e.lab_page import LabPage

pytestmark = pytest.mark.e2e

SAY = (
    "import json, sys; json.load(sys.stdin); print(json.dumps({'systemMessage': 'ls looks fine'}))"
)


@pytest.fixture
def hooked_agent(lab: LabServer, tmp_path: Path) -> Iterator[str]:
    """An agent under a config.json with one PreToolUse hook (the file removed afterwards)."""
    work = tmp_path / "hooked"
    work.mkdir()
    (work / "say.py").write_text(SAY, encoding="utf-8")  # in the workspace: the sandbox shows it
    hook = {"type": "command", "command": f"{sys.executable} {work / 'say.py'}"}
    config = lab.base / "xdg" / "shard" / "config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    kept = config.read_text(encoding="utf-8") if config.exists() else None
    settings = json.loads(kept) if kept else {}
    settings["hooks"] = {"PreToolUse": [{"matcher": "LS", "hooks": [hook]}]}
    config.write_text(json.dumps(settings), encoding="utf-8")
    steps = [
        {"text": "Listing.", "tool_calls": [{"name": "ls", "input": {"path": "."}}]},
        {"text": "Listed."},
    ]
    script = tmp_path / "hooked-script.json"
    script.write_text(json.dumps({"name": "hooked", "steps": steps}))
    body = {"cwd": str(work), "model": f"scripted/{script}", "name": "hooked"}
    agent = lab.api("POST", "/shard/api/agents", body)
    try:
        yield str(agent["id"])
    finally:  # the kernel reads config.json when it starts: kept until the test is done
        lab.api("DELETE", f"/shard/api/agents/{agent['id']}")
        if kept is None:
            config.unlink()
        else:
            config.write_text(kept, encoding="utf-8")


def test_a_hook_run_is_a_card_in_the_chat(
    page: Page, lab: LabServer, hooked_agent: str, request: pytest.FixtureRequest
) -> None:
    lab_page = LabPage(page, lab)
    try:
        lab_page.open()
        chat = lab_page.open_agent(hooked_agent)
        expect(chat.locator(".shard-composer-input")).to_be_enabled(timeout=60_000)
        lab_page.send(chat, "list the files")
        card = chat.locator('.shard-hook-card[data-event="PreToolUse"]')
        expect(card).to_be_visible(timeout=60_000)
        expect(card.locator(".shard-hook-event")).to_have_text("hook PreToolUse (ls)")
        expect(card.locator(".shard-hook-facts")).to_contain_text("none · exit 0 · ")
        expect(card.locator(".shard-hook-facts")).to_contain_text("sandboxed")
        expect(card.locator(".shard-hook-message")).to_have_text("ls looks fine")
        expect(chat.locator(".shard-msg-assistant").last).to_contain_text("Listed.", timeout=30_000)
        save_screenshot(page, "lab-chat-hook-card.png")
    except Exception:
        save_screenshot(page, f"{request.node.name}-failure.png")
        raise
