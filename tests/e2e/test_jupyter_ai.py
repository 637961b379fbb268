"""Shard in jupyter-ai 3.2's chat, in JupyterLab in Chromium: the Shard persona (its
`jupyter_ai.personas` entry point, installed in jupyter-ai's own environment:
tests/fixtures/jupyter_ai.py) runs `shard acp` with a scripted model. A prompt is answered;
the chat's persona menu lists Shard; Shard's edit asks permission in the chat with the
diff and the four options; "Allow once" lets the edit through and it is on disk.

One environment, as `pip install 'shard[jupyter-ai]'` makes it: jupyter-ai-acp-client 0.3 pins
agent-client-protocol<0.12, so that environment has the SDK 0.11.1, and the persona runs
`shard acp` with the server's own Python on it (no SHARD_ACP_COMMAND). Shard's gateway runs in
the same server, so the persona's session is a gateway agent (`--gateway auto`), listed by
`/shard/api/agents` like any agent of the sidebar."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import save_screenshot
from tests.e2e.lab import LabServer
from tests.fixtures.jupyter_ai import jai_python

pytestmark = pytest.mark.e2e

STEPS = [
    {"text": "Hello from Shard."},
    {
        "tool_calls": [
            {
                "name": "edit",
                "input": {"path": "notes.txt", "old_string": "TODO", "new_string": "DONE"},
            }
        ]
    },
    {"text": "I marked the notes done.", "expect": {"last_tool_result_contains": "notes.txt"}},
]


@pytest.fixture
def jai_lab(tmp_path: Path) -> Iterator[LabServer]:
    python = jai_python()
    if not isinstance(python, Path):
        pytest.fail(python)
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"name": "jupyter-ai", "steps": STEPS}))
    env = {"SHARD_ACP_ARGS": f"--model scripted/{script}"}
    server = LabServer(tmp_path / "lab", env, python=str(python))
    server.start(timeout=240)
    yield server
    assert server.stop() == [], "processes left running after Lab stopped"


def send(page: Page, text: str) -> None:
    box = page.get_by_placeholder("Type a chat message")
    box.click()
    box.press_sequentially(text)
    page.keyboard.press("Enter")


def test_shard_answers_asks_in_the_chat_and_edits(
    jai_lab: LabServer, page: Page, request: pytest.FixtureRequest
) -> None:
    (jai_lab.root / "notes.txt").write_text("TODO: ship\n")
    messages = page.locator(".jp-chat-messages-container")
    try:
        page.goto(f"{jai_lab.url}/lab?token={jai_lab.token}")
        page.wait_for_selector(".jp-LauncherCard", timeout=120_000)
        page.evaluate(
            "window.jupyterapp.commands.execute('jupyterlab-chat:createAndOpen', "
            "{name: 'shard.chat'})"
        )
        expect(page.get_by_placeholder("Type a chat message")).to_be_visible(timeout=120_000)
        send(page, "hello")
        expect(messages).to_contain_text("Hello from Shard.", timeout=180_000)

        # jupyter-ai 3.2 names personas in the input's persona menu (`@` completes files and
        # users): Shard is in it.
        page.get_by_role("button").filter(has_text="Shard").last.click()
        menu = page.locator("[role=menu], [role=listbox], .MuiPopover-root").last
        expect(menu).to_contain_text("Shard", timeout=30_000)
        page.keyboard.press("Escape")
        send(page, "@Shard mark the notes done")

        # The permission request, with the diff, answered in the chat.
        allow = page.get_by_role("button", name="Allow once")
        expect(allow).to_be_visible(timeout=180_000)
        for name in ("Always allow Edit(notes.txt)", "Reject", "Always deny Edit(notes.txt)"):
            expect(page.get_by_role("button", name=name)).to_be_visible()
        expect(messages).to_contain_text("+ DONE: ship")
        assert (jai_lab.root / "notes.txt").read_text() == "TODO: ship\n"
        allow.click()
        expect(messages).to_contain_text("I marked the notes done.", timeout=180_000)
        assert (jai_lab.root / "notes.txt").read_text() == "DONE: ship\n"
        # the server runs Shard's gateway too: the persona's session is one of its agents
        agents = jai_lab.api("GET", "/shard/api/agents")["agents"]
        assert [a["cwd"] for a in agents] == [str(jai_lab.root)]
    except Exception:
        save_screenshot(page, f"{request.node.name}.png")
        raise
