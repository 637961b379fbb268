"""`/` commands in the Lab chat tab: the composer's menu is the agent's own commands (bundled,
the kernel's `/status`, a third-party extension's `/greet` from a test file), and a command's
output shows in the chat's transcript (a `command_output` event on the agent protocol)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import save_screenshot
from tests.e2e.lab import LabServer
from tests.e2e.lab_page import LabPage

pytestmark = pytest.mark.e2e

EXTENSION = Path(__file__).resolve().parents[1] / "fixtures" / "extensions" / "greeter_command.py"


@pytest.fixture
def greeter_agent(lab: LabServer, tmp_path: Path) -> Iterator[str]:
    """An agent whose SHARD_HOME has the test extension (removed again afterwards)."""
    folder = lab.base / "shard-home" / "extensions"
    folder.mkdir(parents=True, exist_ok=True)
    installed = folder / EXTENSION.name
    shutil.copy(EXTENSION, installed)
    work = tmp_path / "greeter"
    work.mkdir()
    script = tmp_path / "greeter-script.json"
    script.write_text(json.dumps({"name": "greeter", "steps": [{"text": "hi"}]}))
    body = {"cwd": str(work), "model": f"scripted/{script}", "name": "greeter"}
    agent = lab.api("POST", "/shard/api/agents", body)
    try:
        yield str(agent["id"])
    finally:
        installed.unlink(missing_ok=True)
        lab.api("DELETE", f"/shard/api/agents/{agent['id']}")


def test_status_and_an_extension_command_show_in_the_chat_tab(
    page: Page, lab: LabServer, greeter_agent: str, request: pytest.FixtureRequest
) -> None:
    lab_page = LabPage(page, lab)
    try:
        lab_page.open()
        chat = lab_page.open_agent(greeter_agent)
        box = chat.locator(".shard-composer-input")
        expect(box).to_be_enabled(timeout=60_000)

        box.fill("")
        box.press_sequentially("/")  # the menu asks the agent for its commands
        menu = chat.locator(".shard-slash-menu")
        for name in ("/status", "/greet", "/extensions", "/title", "/help"):
            expect(menu.locator(f'li[data-command="{name}"]')).to_be_visible(timeout=30_000)
        box.press_sequentially("gre")
        expect(menu.locator("li")).to_have_count(1)
        expect(menu).to_contain_text("greets NAME")

        lab_page.send(chat, "/status")
        status = chat.locator(".shard-command-item").filter(has_text="/status")
        expect(status).to_be_visible(timeout=30_000)
        expect(status.locator("table")).to_contain_text(greeter_agent)
        expect(status.locator("table")).to_contain_text("clients")

        lab_page.send(chat, "/greet Ada")
        greeted = chat.locator(".shard-command-item").filter(has_text="/greet Ada")
        expect(greeted).to_contain_text("Hello, Ada: greeted by a test extension.", timeout=30_000)
        lab_page.send(chat, "/nope")
        failed = chat.locator(".shard-command-failed")
        expect(failed).to_contain_text("unknown command /nope; try /help", timeout=30_000)
        save_screenshot(page, "lab-chat-slash-commands.png")
    except Exception:
        save_screenshot(page, f"{request.node.name}-failure.png")
        raise
