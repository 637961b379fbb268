"""Terminal and web tools through `shard acp`: a terminal tool's result is its screen in a
fence (with `rawOutput` that text, what jupyter-ai's card shows), web_fetch's a resource link
to the page above its text, web_search's a resource link per hit with its snippet; a wait's
screen while it runs arrives as in-progress tool_call_updates."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from acp.schema import ContentToolCallContent, ResourceContentBlock, TextContentBlock

from tests.integration.acp.conftest import AcpHost, acp_agent, text_prompt, write_script
from tests.integration.web.servers import PAGE, send, serve


def _page(handler: BaseHTTPRequestHandler) -> None:
    send(handler, 200, PAGE, "text/html; charset=utf-8")


TICKS = "import time; [print(f'tick-{i}', flush=True) or time.sleep(0.4) for i in range(1, 5)]"


def _call(tool: str, **input: object) -> dict[str, object]:
    return {"tool_calls": [{"name": tool, "input": input}]}


async def test_terminal_and_web_results_are_screens_and_links(
    project: Path, acp_env: dict[str, str], tmp_path: Path, agent_python: str
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "reset.md").write_text("# Resetting the gadget\n\nHold the reset button for 5 s.\n")
    with serve({"/page": _page}) as site:
        web = {
            "allowed_domains": [f"127.0.0.1:{site.port}"],
            "search": {"provider": "offline", "folder": str(docs)},
        }
        folder = Path(acp_env["XDG_CONFIG_HOME"]) / "shard"
        folder.mkdir(parents=True)
        (folder / "config.json").write_text(json.dumps({"web": web}), encoding="utf-8")
        steps = [
            _call("terminal_open", command="python3 -i -q", name="repl"),
            _call("terminal_send", id="repl", text="print(6*7, '`' * 4)"),
            _call("terminal_wait", id="repl", pattern="42 ````"),
            _call("terminal_send", id="repl", text=TICKS),
            _call("terminal_wait", id="repl", pattern="tick-4"),
            _call("terminal_close", id="repl"),
            _call("web_fetch", url=f"{site.url}/page"),
            _call("web_search", query="reset button"),
            {"text": "Done."},
        ]
        model = write_script(tmp_path, steps)
        host = AcpHost(answer="allow_once")
        stderr = tmp_path / "stderr"
        async with acp_agent(
            host, acp_env, "--model", model, stderr=stderr, python=agent_python
        ) as (conn, _p, _i):
            new = await conn.new_session(cwd=str(project), mcp_servers=[])
            response = await conn.prompt(session_id=new.session_id, prompt=text_prompt("go"))
    assert response.stop_reason == "end_turn", stderr.read_text()
    starts = {s.tool_call_id: s for s in host.of("tool_call")}
    finals = {
        starts[u.tool_call_id].title: u
        for u in host.of("tool_call_update")
        if u.status in ("completed", "failed")
    }
    assert list(finals) == [
        "terminal_open: python3 -i -q",
        "terminal_send: print(6*7, '`' * 4)",
        "terminal_wait: 42 ````",
        f"terminal_send: {TICKS}",
        "terminal_wait: tick-4",
        "terminal_close: repl",
        f"web_fetch: {site.url}/page",
        "web_search: reset button",
    ]
    assert all(u.status == "completed" for u in finals.values()), stderr.read_text()

    # the screen after the wait: one text block, a fence longer than the backticks it holds
    waited = finals["terminal_wait: 42 ````"]
    [block] = waited.content
    assert isinstance(block, ContentToolCallContent)
    assert isinstance(block.content, TextContentBlock)
    head, fence_open, *screen, fence_close = block.content.text.split("\n")
    assert head.endswith("(repl): python3 -i -q - running")
    assert (fence_open, fence_close) == ("`````text", "`````")
    assert "42 ````" in screen
    assert isinstance(waited.raw_output, str)
    assert "42 ````" in waited.raw_output
    # while the wait ran: in-progress updates, each the screen so far in its fence
    ticking = {s.tool_call_id for s in starts.values() if s.title == "terminal_wait: tick-4"}
    updates = [u for u in host.of("tool_call_update") if u.tool_call_id in ticking]
    running = [u for u in updates if u.status == "in_progress" and u.content]
    assert running, "the wait's card was updated before its result"
    screens = [u.content[0].content.text for u in running]
    assert all(s.split("\n")[1].startswith("```") for s in screens), screens
    assert any("tick-1" in s and "tick-4" not in s for s in screens), screens
    [closed] = finals["terminal_close: repl"].content  # no screen: its text, as any result's
    assert closed.content.text.endswith(" closed")

    # web_fetch: a link to the page, then the page's text
    link, text = finals[f"web_fetch: {site.url}/page"].content
    assert isinstance(link.content, ResourceContentBlock)
    assert (link.content.uri, link.content.name) == (f"{site.url}/page", "Gadget manual")
    assert "reset button" in text.content.text
    assert "SCRIPT-TEXT" not in text.content.text

    # web_search: one link per hit, its snippet as the description
    [hit] = finals["web_search: reset button"].content
    assert isinstance(hit.content, ResourceContentBlock)
    assert hit.content.uri == (docs / "reset.md").as_uri()
    assert "reset button" in (hit.content.description or "")
    assert isinstance(finals["web_search: reset button"].raw_output, str)
