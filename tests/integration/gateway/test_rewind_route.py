"""`/shard/api/agents/ID/rewind` (the panel's route): the turns, a turn's review with the
structured ChangesReview, a rewind through the agent's kernel that every attached client sees as
a `rewind` event, a person's edit answered 409 with the three versions (nothing changed), and a
400 or 409 that says what to send for each bad request."""

from __future__ import annotations

from pathlib import Path

from tests.integration.gateway.conftest import Servers, api, body, write_script
from tests.integration.gateway.test_registry import prompt
from tests.integration.gateway.ws_agent import WsAgent

FIX = {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"}


async def test_review_rewind_and_bad_requests_over_rest(servers: Servers, workspace: Path) -> None:
    (workspace / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    before = (workspace / "calc.py").read_bytes()
    model = write_script(
        workspace.parent, [{"tool_calls": [{"name": "edit", "input": FIX}]}, {"text": "fixed"}]
    )
    server = servers.start()
    created = await api(
        server,
        "POST",
        "/shard/api/agents",
        {"cwd": str(workspace), "model": model, "permissions": {"allow": ["Edit(**)"]}},
    )
    agent = body(created)
    route = f"/shard/api/agents/{agent['id']}/rewind"
    await prompt(server, agent["kernel_id"], "fix add")
    assert b"a + b" in (workspace / "calc.py").read_bytes()
    watcher = await WsAgent.connect(server, agent["kernel_id"], "watcher")
    await watcher.attach(role="observer")
    try:
        listing = body(await api(server, "GET", f"{route}?view=list"))
        assert "| 1 | fix add | 1 |" in listing["message"]
        review = body(await api(server, "GET", f"{route}?turn=1"))
        [changed] = review["data"]["review"]["files"]
        assert (changed["path"], changed["status"], len(changed["hunks"])) == (
            "calc.py",
            "modified",
            1,
        )

        (workspace / "calc.py").write_text("def add(a, b):\n    return a + b  # checked\n")
        refused = await api(server, "POST", route, {"target": "1", "scope": "code"})
        assert refused.code == 409
        assert body(refused)["data"]["conflicts"] == ["calc.py"]
        assert "Three versions" in body(refused)["message"]
        assert (workspace / "calc.py").read_text().endswith("# checked\n")  # nothing changed

        forced = await api(
            server, "POST", route, {"target": "1", "scope": "code", "choice": "force"}
        )
        assert forced.code == 200, forced.body
        assert body(forced)["data"]["restored"] == ["calc.py"]
        assert (workspace / "calc.py").read_bytes() == before
        event = await watcher.wait_event("rewind")  # every attached client sees it
        assert (event["restored"], event["entry_id"]) == (
            ["calc.py"],
            body(forced)["data"]["entry_id"],
        )

        for method, path, sent, code, message in [
            ("POST", route, {"scope": "code"}, 400, "send a target: a turn number or an entry id"),
            ("POST", route, {"action": "revert"}, 400, "send the path of the file to revert"),
            ("POST", route, {"action": "diff"}, 400, "diff and list are GET requests"),
            ("POST", route, {"scope": "sideways", "target": "1"}, 400, "scope: Input should be"),
            ("GET", f"{route}?view=tree", None, 400, "view must be diff or list"),
            ("GET", f"{route}?turn=one", None, 400, "turn must be a turn number"),
            ("GET", f"{route}?turn=7", None, 409, "unknown turn 7: this session has turns 1 to 1"),
        ]:
            answer = await api(server, method, path, sent)
            assert answer.code == code, (path, sent, answer.body)
            assert body(answer)["message"].startswith(message), body(answer)
    finally:
        await watcher.aclose()
    await api(server, "DELETE", f"/shard/api/agents/{agent['id']}")
    stopped = await api(server, "POST", route, {"target": "1"})
    assert (stopped.code, body(stopped)["message"]) == (
        409,
        "the agent is not running: attach to start it, or use shard session rewind",
    )
    missing = await api(server, "GET", "/shard/api/agents/agent-nope/rewind")
    assert missing.code == 404
