"""REST PATCH of an agent's title: logged in its session (running: through its kernel, which
tells every client; stopped: straight into the log), listed in the registry; bad input is a
400 that says what to send."""

from __future__ import annotations

import asyncio
from pathlib import Path

from shard_core.engine.session_store import SessionStore, find_session
from shard_core.engine.titles import latest_title
from tests.integration.gateway.conftest import Servers, api, body, write_script
from tests.integration.gateway.test_registry import prompt


async def _listed_title(server: object, agent_id: str, want: str) -> str | None:
    for _ in range(100):  # the registry reads the status the kernel logged just after
        info = body(await api(server, "GET", f"/shard/api/agents/{agent_id}"))  # type: ignore[arg-type]
        if info.get("title") == want:
            return want
        await asyncio.sleep(0.05)
    return info.get("title")


async def test_patch_names_the_session_running_or_stopped(
    servers: Servers, workspace: Path
) -> None:
    model = write_script(workspace.parent, [{"text": "ok"}, {"text": "ok"}])
    server = servers.start()
    created = await api(
        server, "POST", "/shard/api/agents", {"cwd": str(workspace), "model": model}
    )
    agent = body(created)
    await prompt(server, agent["kernel_id"], "Fix the login flake\nit fails once a day")
    assert await _listed_title(server, agent["id"], "Fix the login flake") == "Fix the login flake"

    patched = await api(server, "PATCH", f"/shard/api/agents/{agent['id']}", {"title": "Login"})
    assert patched.code == 200, patched.body
    assert await _listed_title(server, agent["id"], "Login") == "Login"

    for bad, message in [
        ({"title": ""}, 'send {"title": "…"} with at least one visible character'),
        ({"title": "x" * 121}, "the title is 121 characters: at most 120"),
        ({"name": "y"}, "unknown field 'name': only title can be changed"),
    ]:
        refused = await api(server, "PATCH", f"/shard/api/agents/{agent['id']}", bad)
        assert (refused.code, body(refused)["message"]) == (400, message)

    await api(server, "DELETE", f"/shard/api/agents/{agent['id']}")
    stopped = await api(server, "PATCH", f"/shard/api/agents/{agent['id']}", {"title": "Later"})
    assert stopped.code == 200, stopped.body
    home = Path(server.env["SHARD_HOME"])
    pointer = home / "agents" / agent["id"] / "current-session"
    store = SessionStore.read(find_session(home, pointer.read_text().strip()))
    titles = [t for t in [latest_title(store.entries)] if t]
    assert [(t.title, t.source) for t in titles] == [("Later", "user")]
    missing = await api(server, "PATCH", "/shard/api/agents/agent-nope", {"title": "x"})
    assert missing.code == 404


async def test_usage_history_over_rest(servers: Servers, workspace: Path) -> None:
    model = write_script(workspace.parent, [{"text": "ok"}])
    server = servers.start()
    agent = body(
        await api(server, "POST", "/shard/api/agents", {"cwd": str(workspace), "model": model})
    )
    await prompt(server, agent["kernel_id"], "hello")
    by_agent = await api(server, "GET", "/shard/api/usage?by=agent&since=all")
    assert by_agent.code == 200, by_agent.body
    data = body(by_agent)
    assert (data["by"], data["since"]) == ("agent", None)
    assert [(r["key"], r["requests"]) for r in data["rows"]] == [(agent["id"], 1)]
    bad = await api(server, "GET", "/shard/api/usage?by=planet")
    assert (bad.code, body(bad)["message"]) == (400, "by must be one of model, agent, day, session")
    when = await api(server, "GET", "/shard/api/usage?since=yesterday")
    assert when.code == 400
    assert "give a span like 12h, 7d or 4w" in body(when)["message"]
