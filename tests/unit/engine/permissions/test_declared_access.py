"""A path tool defined here, registered through the ExtensionApi like any third party's, is judged
as `read` is: `Read(src/**)` rules cover it, its own `Peek(…)` rules parse and match, and the
workspace edge holds the same way (outside, through a symlink, by an absolute rule, no path).
A tool that declares nothing gets no specifier rules and is asked when it is not read-only."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from shard_core.contracts import ExtensionApi, PathAccess, PermissionQuery, ToolContext
from shard_core.engine.config import ShardConfig
from shard_core.engine.extension_host import ExtensionHost
from shard_core.engine.permissions import GrantStore, RuleGate, RuleSet, parse_rule
from shard_core.protocol.events import ToolResultEvent
from shard_core.sdk import create_agent
from shard_core.tools.workspace import resolve_in_workspace
from shard_core.types import ToolResult
from shard_core.types.errors import ConfigError
from tests.fixtures.function_provider import FunctionProvider, scripted
from tests.unit.engine.permissions._support import Log, rules

Query = Callable[..., PermissionQuery]


class PeekTool:
    """A third party's file tool: its path is the `file` argument."""

    name = "peek"
    description = "The first line of a file."
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {"file": {"type": "string"}},
        "required": ["file"],
    }
    read_only = True
    access = PathAccess(arg="file")

    async def execute(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        target = resolve_in_workspace(input["file"], ctx)  # the tool's own containment
        if isinstance(target, ToolResult):
            return target
        return ToolResult.ok(target.read_text(encoding="utf-8").splitlines()[0])


class OpaqueTool:
    """A third party's tool that declares no shape."""

    name = "opaque_write"
    description = "Changes something."
    input_schema: dict[str, Any] = {"type": "object", "properties": {"file": {"type": "string"}}}
    read_only = False

    async def execute(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult.ok("done")


def _register(api: ExtensionApi) -> None:
    api.register_tool(PeekTool())
    api.register_tool(OpaqueTool())


@pytest.fixture
async def host() -> ExtensionHost:
    host = ExtensionHost()
    await host.install("third.party.peek", _register)
    return host


@pytest.fixture
def world(ws: Path, tmp_path: Path) -> Path:
    (ws / "src").mkdir()
    (ws / "src" / "a.py").write_text("x = 1\n")
    (ws / "notes.txt").write_text("hello\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("s3cret\n")
    os.symlink(outside / "secret.txt", ws / "src" / "link.txt")
    return Path(os.path.realpath(outside))


def _gate(host: ExtensionHost, ruleset: RuleSet, home: Path) -> RuleGate:
    return RuleGate(
        rules=ruleset, grants=GrantStore("agent-1"), record=Log().record,
        tools=host.snapshot.tools.get,
    )  # fmt: skip


def _pair(query: Query, path: str) -> tuple[PermissionQuery, PermissionQuery]:
    return query("read", path=path), query("peek", read_only=True, file=path)


def _seen(gate: RuleGate, call: PermissionQuery) -> tuple[str, str | None, str | None]:
    found = gate.explain(call)
    return found.decision, found.ask, found.outside and str(found.outside)


@pytest.mark.parametrize(
    ("ruleset", "path", "decision", "ask"),
    [
        ((), "src/a.py", "allow", None),
        ((), "../outside/secret.txt", "ask", "guarded"),
        ((), "src/link.txt", "ask", "guarded"),  # the symlink leads out of the workspace
        ((), "", "ask", "unclear"),
        ((("deny", "Read(src/**)"),), "src/a.py", "deny", None),
        ((("ask", "Read(src/**)"),), "src/a.py", "ask", "forced"),
        ((("allow", "Read(**)"),), "src/link.txt", "ask", "guarded"),  # no broad rule leaves
        ((("allow", "Read(//OUT/**)"),), "src/link.txt", "allow", None),
        ((("deny", "Read(src/link.txt)"),), "src/link.txt", "deny", None),  # as written, too
        ((("allow", "Read(/OUT/secret.txt)"),), "../outside/secret.txt", "allow", None),
    ],
)
def test_a_third_party_path_tool_is_judged_as_read(
    host, query, world, home, ruleset, path, decision, ask
) -> None:
    texts = {kind: [t.replace("/OUT", str(world)) for k, t in ruleset if k == kind]
             for kind in ("allow", "ask", "deny")}  # fmt: skip
    gate = _gate(host, RuleSet.parse("test", **texts), home)
    read, peek = _pair(query, path)

    assert _seen(gate, read)[:2] == (decision, ask)
    assert _seen(gate, peek) == _seen(gate, read)


def test_its_own_rules_parse_and_cover_only_it(host, query, world, home) -> None:
    gate = _gate(host, rules(deny=("Peek(src/**)",)), home)
    read, peek = _pair(query, "src/a.py")

    assert parse_rule("Peek(src/**)").path is not None
    assert gate.explain(peek).decision == "deny"
    assert gate.explain(read).decision == "allow"


def test_an_outside_path_allowed_by_rule_widens_only_that_call(host, query, world, home) -> None:
    gate = _gate(host, rules(allow=(f"Read({world}/secret.txt)",)), home)
    _, peek = _pair(query, "../outside/secret.txt")

    found = gate.explain(peek)

    assert (found.decision, found.outside) == ("allow", world / "secret.txt")


def test_its_suggestion_names_it_and_allows_the_call_next_time(host, query, world, home) -> None:
    _, peek = _pair(query, "../outside/secret.txt")

    found = _gate(host, rules(), home).explain(peek)
    again = _gate(host, rules(allow=(str(found.suggested_rule),)), home).explain(peek)

    assert found.suggested_rule == f"Peek({world}/secret.txt)"
    assert again.decision == "allow"


def test_a_tool_that_declares_nothing_is_asked_and_takes_no_specifier(
    host, query, world, home
) -> None:
    call = query("opaque_write", read_only=False, file="src/a.py")

    found = _gate(host, rules(allow=("Read(**)", "Edit(**)")), home).explain(call)

    assert (found.decision, found.suggested_rule) == ("ask", "OpaqueWrite")
    with pytest.raises(ConfigError, match=r"OpaqueWrite\(…\) takes no specifier"):
        parse_rule("OpaqueWrite(src/**)")


async def test_in_an_agent_the_gate_contains_it_as_read(tmp_path: Path, world: Path) -> None:
    ws = world.parent / "ws"
    calls = [("peek", {"file": "src/a.py"}), ("peek", {"file": "src/link.txt"})]
    provider = FunctionProvider(scripted({"tool_calls": calls}))

    def extensions(api: ExtensionApi) -> None:
        api.register_provider("fn", lambda _model: provider)
        _register(api)

    agent = await create_agent(
        cwd=ws, model="fn/any", home=tmp_path / "home", config=ShardConfig(), env={},
        allow=["Read(src/**)"], headless_policy="deny", extensions=[("test.peek", extensions)],
    )  # fmt: skip
    try:
        events = [e async for e in agent.prompt("peek at both")]
    finally:
        await agent.close()

    results = [e.result for e in events if isinstance(e, ToolResultEvent)]
    assert [r.is_error for r in results] == [False, True]
    assert results[0].text == "x = 1"
    assert "s3cret" not in results[1].text
