"""A slash command's text/plain fallback is words, not Markdown: `/help` in a real kernel."""

from __future__ import annotations

from typing import Any

from tests.integration.kernel.conftest import StartKernel


def _display(kc: Any, code: str) -> dict[str, str]:
    msg_id = kc.execute(code)
    while True:
        msg = kc.get_iopub_msg(timeout=60)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["header"]["msg_type"] == "display_data":
            return msg["content"]["data"]
        assert msg["header"]["msg_type"] != "error", msg["content"]


def test_help_text_plain_has_no_markdown_escapes(start_kernel: StartKernel) -> None:
    _, kc = start_kernel([{"text": "hi"}])

    data = _display(kc, "/help")

    plain = data["text/plain"]
    assert "**" in data["text/markdown"]  # the Markdown itself is unchanged
    assert "\\" not in plain
    assert "**" not in plain
    assert "|---" not in plain
    assert plain.startswith("Shard cell commands (anything else is a prompt to the agent)")
    lines = plain.splitlines()
    assert any(
        line.startswith("/compact ") and "compact the conversation now" in line for line in lines
    )
    # an extension's description (code index) keeps its punctuation, unescaped
    assert any(
        line.startswith("/index ") and "(`/index refresh` re-stats all)" in line for line in lines
    ), plain
