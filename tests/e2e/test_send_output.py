"""'Send this output to the agent' on a notebook output's context menu: the output becomes
context the agent logs (no turn starts) and its next request carries."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import Script, save_screenshot
from tests.e2e.lab import LabServer
from tests.e2e.lab_page import RENDER_MIME, LabPage

pytestmark = pytest.mark.e2e
ORACLE = "said the oracle"


def _contexts(home: Path, holding: str) -> list[dict[str, object]]:
    """The contexts logged under ``home`` whose text holds ``holding``: the Lab server is shared,
    so other tests' agents log their own contexts beside this one, some of kind output too (an
    edit's 'diagnostics after edit a.py', which a language server can send any time later)."""
    found: list[dict[str, object]] = []
    for log in home.glob("agents/*/sessions/*.jsonl"):
        for line in log.read_text().splitlines():
            entry = json.loads(line)
            details = entry.get("details", {}) if entry.get("type") == "message" else {}
            if isinstance(details.get("context"), dict) and holding in json.dumps(
                details.get("message")
            ):
                found.append(details)
    return found


def test_send_this_output_to_the_agent(
    lab: LabServer, page: Page, shard_script: Script, request: pytest.FixtureRequest
) -> None:
    shard_script([{"text": "The answer is 42, said the oracle."}])
    lab_page = LabPage(page, lab)
    home = Path(lab.env["SHARD_HOME"])
    before = len(_contexts(home, ORACLE))
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
        page.keyboard.type("ask the oracle")
        page.keyboard.press("Shift+Enter")
        # the reply's own output: the live display it streamed into is left empty once the
        # finished text is sent as its own display (so clients that cannot update see it whole)
        outputs = page.locator(f'.jp-OutputArea-output[data-mime-type="{RENDER_MIME}"]')
        output = outputs.filter(has_text="said the oracle").first
        expect(output).to_contain_text("said the oracle", timeout=60_000)

        output.click(button="right")
        item = page.locator(".lm-Menu-itemLabel", has_text="Send this output to the agent")
        expect(item).to_be_visible()
        save_screenshot(page, "e2e-send-output-menu.png")
        item.click()

        deadline = time.monotonic() + 30
        while len(_contexts(home, ORACLE)) == before:
            assert time.monotonic() < deadline, "no context entry was logged"
            time.sleep(0.2)
        context = _contexts(home, ORACLE)[-1]
        assert context["context"] == {
            "kind": "output",
            "label": context["context"]["label"],  # type: ignore[index]
        }
        label = str(context["context"]["label"])  # type: ignore[index]
        assert label.endswith(".ipynb cell [1]"), label  # a display: the cell's number
        text = context["message"]["content"][0]["text"]  # type: ignore[index]
        assert "said the oracle" in text
        assert text.startswith(f'<context kind="output" label="{label}">')
        # no turn started: the context is the newest message, nothing answered it
        logs = sorted(home.glob("agents/*/sessions/*.jsonl"), key=lambda p: p.stat().st_mtime)
        messages = [
            json.loads(line)
            for line in logs[-1].read_text().splitlines()
            if json.loads(line).get("type") == "message"
        ]
        assert messages[-1]["details"].get("context") is not None
    except Exception:
        save_screenshot(page, f"{request.node.name}-failure.png")
        raise
