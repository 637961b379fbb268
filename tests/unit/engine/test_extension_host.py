"""ExtensionHost: the one registration surface — attribution, replacement, failures, disposers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from shard_core.contracts import ExtensionApi, ToolContext
from shard_core.engine.extension_host import ExtensionHost
from shard_core.types import ToolResult


class EchoTool:
    name = "echo"
    description = "echo the input"
    input_schema: dict[str, Any] = {"type": "object", "properties": {"text": {"type": "string"}}}
    read_only = True

    async def execute(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult.ok(str(input.get("text", "")))


async def test_a_tool_from_an_extension_is_registered_and_callable(tmp_path: Path) -> None:
    host = ExtensionHost()
    assert await host.install("test.echo", lambda api: api.register_tool(EchoTool()))
    tool = host.snapshot.tools.get("echo")
    assert tool is not None
    ctx = ToolContext(cwd=tmp_path, roots=[tmp_path], agent_id="a", session_id="s", call_id="c")
    result = await tool.execute({"text": "hi"}, ctx)
    assert result.text == "hi"
    assert [(d.extension, d.message) for d in host.diagnostics] == [
        ("test.echo", "registered tool:echo")
    ]


async def test_a_throwing_extension_is_reported_and_the_others_load() -> None:
    host = ExtensionHost()

    def broken(api: ExtensionApi) -> None:
        api.register_tool(EchoTool())
        raise RuntimeError("boom")

    async def fine(api: ExtensionApi) -> None:
        api.on("turn_end", lambda event: None)

    assert not await host.install("test.broken", broken)
    assert await host.install("test.fine", fine)
    errors = [d for d in host.diagnostics if d.level == "error"]
    assert [(d.extension, d.message) for d in errors] == [
        ("test.broken", "failed to install: RuntimeError: boom")
    ]
    assert host.installed == ["test.fine"]
    assert host.snapshot.handlers[0][0] == "turn_end"


async def test_replacement_is_attributed_and_disposers_run_in_reverse() -> None:
    host = ExtensionHost()
    order: list[str] = []

    def first(api: ExtensionApi) -> Any:
        api.register_tool(EchoTool())
        return lambda: order.append("first")

    def second(api: ExtensionApi) -> Any:
        api.register_tool(EchoTool())

        def dispose() -> None:
            order.append("second")
            raise ValueError("disposer failed")

        return dispose

    await host.install("ext.first", first)
    await host.install("ext.second", second)
    replaced = [d for d in host.diagnostics if d.level == "warning"]
    assert replaced[0].message == "replaced tool:echo (was registered by ext.first)"
    await host.shutdown()
    assert order == ["second", "first"]
    assert any(d.message == "disposer failed: disposer failed" for d in host.diagnostics)


async def test_project_extensions_need_trust(tmp_path: Path) -> None:
    folder = tmp_path / "extensions"
    folder.mkdir()
    (folder / "hello.py").write_text(
        "def extension(api):\n    api.on('turn_start', lambda e: None)\n"
    )
    untrusted = ExtensionHost()
    await untrusted.install_folder(folder, trusted=False)
    assert untrusted.installed == []
    assert untrusted.diagnostics[0].message == ("skipped: project extensions need --trust-project")
    trusted = ExtensionHost()
    await trusted.install_folder(folder, trusted=True)
    assert trusted.installed == ["extensions/hello.py"]


async def test_status_rows_are_declared_by_their_owners_and_a_failing_one_says_so() -> None:
    """`/status` looks its rows up: a row that says None is hidden, one that raises is shown as
    its owner's failure and the rest still show; a later registration of a label replaces it,
    attributed like any other."""
    host = ExtensionHost()

    def broken() -> str:
        raise RuntimeError("no database")

    def install(api: ExtensionApi) -> None:
        api.register_status("build", lambda: "green")
        api.register_status("hidden", lambda: None)
        api.register_status("db", broken)

    assert await host.install("acme.status", install)
    assert host.status_rows() == [
        ("build", "green"),
        ("db", "(acme.status could not say: RuntimeError: no database)"),
    ]
    assert await host.install(
        "other.status", lambda api: api.register_status("build", lambda: "red")
    )
    assert host.status_rows()[0] == ("build", "red")
    assert any(
        d.extension == "other.status" and "replaced status:build" in d.message
        for d in host.diagnostics
    )
