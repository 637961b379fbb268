"""Pure mappings of `shard acp`: a terminal's screen in a fence nothing in it closes, a web
result as resource links, a result without a card as its text, and a hook's stop as ACP's."""

from __future__ import annotations

from pathlib import Path

from acp.schema import ResourceContentBlock, TextContentBlock

from shard_core.types import TerminalDescriptor, ToolResult, WebPageDescriptor
from shard_core.types.session import HookRunCheckpoint
from shard_kernel.acp.session import hook_stop
from shard_kernel.acp.updates import raw_output, result_content, screen_text


def _terminal(screen: str) -> TerminalDescriptor:
    return TerminalDescriptor(
        terminal_id="t1", name="repl", command="python3 -i", state="running", screen=screen
    )


def test_a_screen_is_fenced_past_its_own_backticks() -> None:
    text = screen_text(_terminal(">>> print('``````')\n``````\n>>> \n"))
    assert text.split("\n") == [
        "terminal t1 (repl): python3 -i - running",
        "```````text",
        ">>> print('``````')",
        "``````",
        ">>> ",
        "```````",
    ]
    assert screen_text(_terminal("")).split("\n")[1:] == ["```text", "(blank)", "```"]


def test_a_server_terminal_is_named() -> None:
    card = _terminal("$ ").model_copy(update={"server_terminal": "3"})
    assert screen_text(card).split("\n")[0].endswith(" - running - Jupyter terminal 3")


def test_web_results_are_links_and_other_results_their_text() -> None:
    page = WebPageDescriptor(url="https://docs.example.com/a", title="A", text="about a")
    fetched = ToolResult.ok("# A\nhttps://docs.example.com/a\n\nabout a", page)
    link, text = result_content("web_fetch", {}, fetched, Path("/w"))
    assert isinstance(link.content, ResourceContentBlock)
    assert (link.content.uri, link.content.name, link.content.description) == (
        "https://docs.example.com/a", "A", None,
    )  # fmt: skip
    assert isinstance(text.content, TextContentBlock)
    assert text.content.text == fetched.text
    hits = ToolResult.ok("2 results", page, page.model_copy(update={"url": "https://b.example"}))
    found = result_content("web_search", {}, hits, Path("/w"))
    assert [c.content.uri for c in found] == ["https://docs.example.com/a", "https://b.example"]
    assert [c.content.description for c in found] == ["about a", "about a"]
    assert raw_output(hits) == "2 results"
    plain = ToolResult.ok("hello", n=1)
    assert raw_output(plain) == {"text": "hello", "isError": False, "details": {"n": 1}}
    [only] = result_content("bash", {"command": "echo hello"}, plain, Path("/w"))
    assert only.content.text == "$ echo hello\nhello"


def _run(event: str, reason: str | None) -> HookRunCheckpoint:
    return HookRunCheckpoint(
        event=event, command="gate", source="config.json", duration_ms=1, decision="stop",
        reason=reason,
    )  # fmt: skip


def test_a_hook_stop_is_refusal_only_before_the_prompt_is_logged() -> None:
    said = {"stopReason": "hook_stopped", "hook": "UserPromptSubmit", "reason": "no"}
    assert hook_stop(False, _run("UserPromptSubmit", "no")) == ("refusal", {"shard": said})
    assert hook_stop(True, _run("PreToolUse", None)) == (
        "end_turn", {"shard": {"stopReason": "hook_stopped", "hook": "PreToolUse"}},
    )  # fmt: skip
    assert hook_stop(True, None) == ("end_turn", {"shard": {"stopReason": "hook_stopped"}})
