"""Every ExtensionApi registration takes effect in an agent built by `create_agent`: each test
fails if the host stores the registration and nothing consults it."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from shard_core.contracts import (
    CodeIntelligenceProvider,
    CompactionInput,
    ExtensionApi,
    ExtractorContext,
    Symbol,
    ToolContext,
)
from shard_core.engine.config import ShardConfig
from shard_core.engine.extension_host import ExtensionHost
from shard_core.protocol.events import Event
from shard_core.sdk import Agent, create_agent
from shard_core.types import CompactionDetails, CompactionEntry, NormalizedBlock, ToolResult
from tests.fixtures.function_provider import FunctionProvider, scripted


class FakeIndex:
    name = "fake-index"

    def __init__(self) -> None:
        self.asked: list[str] = []

    def outline(self, path: str) -> list[Symbol]:
        return [Symbol("add", "function", path, 1, "def add(a, b)")]

    def symbol(self, name: str) -> list[Symbol]:
        return []

    def signatures(self, path: str) -> list[str]:
        self.asked.append(path)
        return ["def add(a: int, b: int) -> int  # from the index"]

    def invalidate(self, path: str) -> None:
        pass


class OutlineTool:
    """A tool that asks for `ctx.code_index`, as a capability's tool would."""

    name = "outline"
    description = "outline a file"
    input_schema: dict[str, Any] = {"type": "object", "properties": {"path": {"type": "string"}}}
    read_only = True

    async def execute(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if ctx.code_index is None:
            return ToolResult.error("no code index")
        return ToolResult.ok(", ".join(s.name for s in ctx.code_index.outline(input["path"])))


class TodoExtractor:
    name = "todos"
    title = "Open Todos"
    max_lines = 3

    def __call__(self, blocks: Sequence[NormalizedBlock], ctx: ExtractorContext) -> list[str]:
        return [f"todo {i}\nwith a newline" for i in range(10)]


async def _agent(tmp_path: Path, replies: list[Any], *extensions: Any, **kw: Any) -> Agent:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    (ws / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    provider = FunctionProvider(scripted(*replies))

    def fn(api: ExtensionApi) -> None:
        api.register_provider("fn", lambda model: provider)

    return await create_agent(
        cwd=ws,
        model="fn/any",
        home=tmp_path / "home",
        config=ShardConfig(),
        env={},
        allow=["Read(**)", "outline"],
        extensions=[("test.fn", fn), *extensions],
        **kw,
    )


async def test_on_handlers_fire_for_every_event_sync_and_async(tmp_path: Path) -> None:
    seen: list[str] = []
    every: list[str] = []
    late: list[str] = []

    async def slow(event: Event) -> None:
        await asyncio.sleep(0)
        late.append(event.type)

    def ext(api: ExtensionApi) -> None:
        api.on("turn_end", lambda e: seen.append(e.type))
        api.on("*", lambda e: every.append(e.type))
        api.on("tool_result", slow)

    replies = [{"tool_calls": [("read", {"path": "calc.py"})]}, "ok"]
    agent = await _agent(tmp_path, replies, ("test.on", ext))
    try:
        events = [e.type async for e in agent.prompt("read calc")]
        await agent.host.drain()
    finally:
        await agent.close()
    assert seen == ["turn_end"]
    assert every[: len(events)] == events  # then the status going back to idle
    assert {"turn_start", "tool_call", "tool_result", "turn_end"} <= set(events)
    assert late == ["tool_result"]


async def test_a_raising_handler_is_reported_and_the_turn_completes(tmp_path: Path) -> None:
    def boom(event: Event) -> None:
        raise ValueError("handler bug")

    async def async_boom(event: Event) -> None:
        raise KeyError("async bug")

    def ext(api: ExtensionApi) -> None:
        api.on("*", boom)
        api.on("turn_end", async_boom)

    agent = await _agent(tmp_path, ["done"], ("test.boom", ext))
    try:
        end = await agent.run("hi")
        await agent.host.drain()
    finally:
        await agent.close()
    assert end.reason == "completed"
    errors = {(d.extension, d.message) for d in agent.host.diagnostics if d.level == "error"}
    assert ("test.boom", "handler for turn_end failed: ValueError: handler bug") in errors
    assert ("test.boom", "handler for turn_end failed: KeyError: 'async bug'") in errors


async def test_an_extractor_adds_a_section_within_its_budget(tmp_path: Path) -> None:
    def ext(api: ExtensionApi) -> None:
        api.register_extractor(TodoExtractor())

    agent = await _agent(tmp_path, ["first", "second"], ("test.todos", ext))
    try:
        await agent.run("one")
        await agent.run("two")
        assert await agent.session.compact(force=True) is not None
    finally:
        await agent.close()
    summary = _summary(agent)
    section = summary.split("## Open Todos\n")[1].split("\n\n")[0]
    assert section.splitlines() == [f"- todo {i} with a newline" for i in range(3)]
    assert summary.index("## Open Todos") < summary.index("## Brief Transcript")


async def test_a_raising_extractor_is_reported_and_compaction_goes_on(tmp_path: Path) -> None:
    class Broken(TodoExtractor):
        def __call__(self, blocks: Sequence[NormalizedBlock], ctx: ExtractorContext) -> list[str]:
            raise RuntimeError("extractor bug")

    def ext(api: ExtensionApi) -> None:
        api.register_extractor(Broken())

    agent = await _agent(tmp_path, ["a", "b"], ("test.broken", ext))
    try:
        await agent.run("one")
        await agent.run("two")
        assert await agent.session.compact(force=True) is not None
    finally:
        await agent.close()
    assert "## Open Todos" not in _summary(agent)
    assert [(d.extension, d.message) for d in agent.host.diagnostics if d.level == "error"] == [
        ("test.broken", "extractor todos failed: RuntimeError('extractor bug')")
    ]


async def test_code_intelligence_reaches_the_compactor_and_tools(tmp_path: Path) -> None:
    index = FakeIndex()
    provider: CodeIntelligenceProvider = index  # the contract, checked by pyright

    def ext(api: ExtensionApi) -> None:
        api.register_code_intelligence(provider)
        api.register_tool(OutlineTool())

    replies = [
        {"tool_calls": [("read", {"path": "calc.py"}), ("outline", {"path": "calc.py"})]},
        "read it",
        "next",
    ]
    agent = await _agent(tmp_path, replies, ("test.index", ext))
    try:
        await agent.run("read calc")
        await agent.run("more")
        assert await agent.session.compact(force=True) is not None
    finally:
        await agent.close()
    outline = [e for e in agent.session.store.branch() if e.type == "tool_result"][1]
    assert outline.details.result.text == "add"  # pyright: ignore[reportAttributeAccessIssue]
    assert [Path(p).name for p in index.asked] == ["calc.py"]
    assert "- calc.py: def add(a: int, b: int) -> int # from the index\n" in _summary(agent)


async def test_providers_and_compactors_resolve_by_name(tmp_path: Path) -> None:
    class NamedCompactor:
        name = "mine"

        def should_compact(self, context_tokens: int, context_window: int) -> bool:
            return False

        def compact(self, data: CompactionInput) -> CompactionDetails | None:
            return None

    mine = NamedCompactor()
    agent = await _agent(tmp_path, ["x"], ("test.c", lambda api: api.register_compactor(mine)))
    try:
        assert agent.session.compactor is mine
        assert agent.host.compactor("mine") is mine
        assert agent.host.compactor("deterministic") is not None
        assert agent.host.compactor("nope") is None
        assert (await agent.run("hi")).reason == "completed"  # the "fn" provider answered
    finally:
        await agent.close()
    with pytest.raises(Exception, match="unknown provider 'nofn'"):
        await create_agent(cwd=tmp_path, model="nofn/x", home=tmp_path / "h", config=ShardConfig())


async def test_skill_loaders_are_kept_in_order_with_their_source() -> None:
    host = ExtensionHost()

    def broken() -> list[dict[str, Any]]:
        raise OSError("unreadable")

    await host.install("ext.a", lambda api: api.register_skill_loader(lambda: [{"name": "a"}]))
    await host.install("ext.b", lambda api: api.register_skill_loader(broken))
    await host.install("ext.c", lambda api: api.register_skill_loader(lambda: [{"name": "c"}]))
    assert [owner for owner, _ in host.skill_loaders()] == ["ext.a", "ext.b", "ext.c"]
    assert host.load_skills() == [{"name": "a"}, {"name": "c"}]
    assert [(d.extension, d.message) for d in host.diagnostics if d.level == "error"] == [
        ("ext.b", "skill loader failed: OSError: unreadable")
    ]


async def test_mcp_transports_are_queryable_by_name() -> None:
    host = ExtensionHost()

    def stdio(config: dict[str, Any]) -> Any:
        return ("stdio", config["command"])

    await host.install("ext.mcp", lambda api: api.register_mcp_transport("stdio", stdio))
    factory = host.mcp_transport("stdio")
    assert factory is not None
    assert factory({"command": "srv"}) == ("stdio", "srv")
    assert host.mcp_transport("sse") is None
    assert ("ext.mcp", "registered mcp_transport:stdio") in [
        (d.extension, d.message) for d in host.diagnostics
    ]


def _summary(agent: Agent) -> str:
    entries = [e for e in agent.session.store.branch() if isinstance(e, CompactionEntry)]
    return entries[-1].details.summary
