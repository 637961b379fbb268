"""`ask_user` in JupyterLab in Chromium: A's prompt makes the agent ask a question (a dialog in
A's chat); B opens Lab while it is pending and sees the same question (replayed on attach),
answers it, and both chats say it was B who answered; the turn goes on with B's answer."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import save_screenshot
from tests.e2e.lab_page import LabPage
from tests.e2e.test_lab_agents import MakeAgent, make_agent, people

pytestmark = pytest.mark.e2e
__all__ = ["make_agent", "people"]  # fixtures shared with the agents tests

ASK: dict[str, Any] = {
    "question": "Which checks should run?",
    "choices": ["lint", "tests", "docs"],
    "multi": True,
    "allow_other": True,
}
STEPS = [
    {"tool_calls": [{"name": "ask_user", "input": ASK}]},
    {"text": "Running them.", "expect": {"last_tool_result_contains": "answered: tests; bench"}},
]


def test_a_question_answered_by_the_person_who_came_later(
    people: list[LabPage], make_agent: MakeAgent, tmp_path: Path
) -> None:
    a, b = people
    agent = make_agent(STEPS, "asker")
    a.open()
    chat_a = a.open_agent(agent["id"])
    a.send(chat_a, "check the project")
    dialog_a = chat_a.locator(".shard-ui-question")
    expect(dialog_a).to_be_visible(timeout=30_000)
    expect(dialog_a).to_contain_text("Which checks should run?")

    b.open()  # B attaches while the question is pending
    chat_b = b.open_agent(agent["id"])
    dialog_b = chat_b.locator(".shard-ui-question")
    expect(dialog_b).to_be_visible(timeout=30_000)
    expect(dialog_b.locator(".shard-question-box")).to_have_count(3)
    save_screenshot(b.page, "e2e-lab-ask-user-1-B-attached.png")

    dialog_b.get_by_role("button", name="Answer").click()  # nothing chosen: refused, still open
    expect(dialog_b.locator(".shard-dialog-footer")).to_contain_text(
        "an answer needs at least one choice; the question is still open"
    )
    dialog_b.locator(".shard-question-box[value='tests']").check()
    dialog_b.locator(".shard-question-other").fill("bench")
    dialog_b.get_by_role("button", name="Answer").click()

    b_label = b.tab_label()
    for dialog in (dialog_a, dialog_b):
        expect(dialog.locator(".shard-dialog-footer")).to_have_text(  # B's person and tab
            re.compile(rf"^Answered: tests, bench — by \S.* · {re.escape(b_label)}$"),
            timeout=15_000,
        )
    for chat in (chat_a, chat_b):
        expect(chat).to_contain_text("Running them.", timeout=15_000)
    save_screenshot(a.page, "e2e-lab-ask-user-2-A-sees-who.png")
