"""In an agent, `WebFetch(domain:…)` rules decide web_fetch calls against a real local server: an
allowed host runs without a question, another host is asked (and denied headless), a deny rule
wins over an allow, and web.denied_domains still refuses what a rule allows."""

from __future__ import annotations

from pathlib import Path

from shard_core.contracts import ExtensionApi
from shard_core.engine.config import ShardConfig
from shard_core.protocol.events import PermissionRequestEvent, ToolResultEvent
from shard_core.sdk import create_agent
from tests.fixtures.function_provider import FunctionProvider, scripted
from tests.integration.web.servers import send, serve


async def _run(
    tmp_path: Path, urls: list[str], allow: list[str], deny: list[str], web: dict[str, object]
):
    provider = FunctionProvider(scripted({"tool_calls": [("web_fetch", {"url": u}) for u in urls]}))

    def extension(api: ExtensionApi) -> None:
        api.register_provider("fn", lambda _model: provider)

    workspace = tmp_path / "ws"
    workspace.mkdir()
    agent = await create_agent(
        cwd=workspace, model="fn/any", home=tmp_path / "home", env={},
        config=ShardConfig.model_validate({"web": web}), allow=allow, deny=deny,
        headless_policy="deny", extensions=[("test.fn", extension)],
    )  # fmt: skip
    try:
        return [e async for e in agent.prompt("fetch them")]
    finally:
        await agent.close()


async def test_an_allowed_domain_runs_unasked_and_another_is_asked(tmp_path: Path) -> None:
    with serve({"/page": lambda h: send(h, 200, b"<h1>hello page</h1>", "text/html")}) as site:
        events = await _run(
            tmp_path,
            [f"http://127.0.0.1:{site.port}/page", f"http://localhost:{site.port}/page"],
            allow=["WebFetch(domain:127.0.0.1)"],
            deny=[],
            web={"allowed_domains": ["127.0.0.1", "localhost"]},
        )
        hits = site.count("/page")
    asked = [e for e in events if isinstance(e, PermissionRequestEvent)]
    results = [e.result for e in events if isinstance(e, ToolResultEvent)]
    assert [(a.tool, a.input["url"], a.suggested_rule) for a in asked] == [
        ("web_fetch", f"http://localhost:{site.port}/page", "WebFetch(domain:localhost)")
    ]
    assert [r.is_error for r in results] == [False, True]
    assert "hello page" in results[0].text
    assert hits == 1, "the asked (and denied) call never reached the server"


async def test_deny_beats_allow_and_the_domain_policy_still_applies(tmp_path: Path) -> None:
    with serve({"/page": lambda h: send(h, 200, b"<h1>hello page</h1>", "text/html")}) as site:
        events = await _run(
            tmp_path,
            [f"http://127.0.0.1:{site.port}/page", f"http://localhost:{site.port}/page"],
            allow=["WebFetch"],
            deny=["WebFetch(domain:localhost)"],
            web={"allowed_domains": ["localhost"]},  # 127.0.0.1 is not in the policy
        )
        hits = site.count("/page")
    asked = [e for e in events if isinstance(e, PermissionRequestEvent)]
    results = [e.result for e in events if isinstance(e, ToolResultEvent)]
    assert asked == []
    assert [r.is_error for r in results] == [True, True]
    assert "not in web.allowed_domains" in results[0].text
    assert "WebFetch(domain:localhost)" in results[1].text
    assert hits == 0
