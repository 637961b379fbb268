"""`api.register_command` takes effect: the kernel's cell dispatches to it, `/help` lists it,
completion offers it, and a failing or badly named command is reported, never a crash."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from shard_core.contracts import ExtensionApi
from shard_core.engine.config import ShardConfig
from shard_core.engine.extension_host import ExtensionHost
from shard_core.sdk import Agent, create_agent
from shard_core.types.errors import ConfigError
from shard_kernel.slash import command_names, run_slash

NO_KERNEL = cast(Any, None)  # registered commands never touch the kernel


async def _agent(tmp_path: Path, *extensions: Any) -> Agent:
    ws = tmp_path / "ws"
    ws.mkdir()
    return await create_agent(
        cwd=ws,
        model="scripted/demo",
        home=tmp_path / "home",
        config=ShardConfig(),
        env={},
        extensions=list(extensions),
    )


async def test_a_registered_command_runs_and_is_listed(tmp_path: Path) -> None:
    calls: list[list[str]] = []

    def hello(args: list[str]) -> str:
        calls.append(args)
        return f"hello {' '.join(args)}"

    async def later(args: list[str]) -> str:
        return "async works"

    def ext(api: ExtensionApi) -> None:
        api.register_command("hello", "greets", hello)
        api.register_command("/ext:later", "answers later", later)

    agent = await _agent(tmp_path, ("test.ext", ext))
    try:
        assert await run_slash(NO_KERNEL, agent, "/hello big 'wide world'") == (
            "hello big wide world"
        )
        assert calls == [["big", "wide world"]]
        assert await run_slash(NO_KERNEL, agent, "/ext:later") == "async works"
        help_md = await run_slash(NO_KERNEL, agent, "/help")
        assert "| `/hello` | greets (extension test\\.ext) |" in help_md
        assert "/ext:later" in help_md
        assert {"/hello", "/ext:later", "/mode"} <= set(command_names(agent))
    finally:
        await agent.close()


async def test_a_failing_command_is_an_error_naming_its_extension(tmp_path: Path) -> None:
    def broken(args: list[str]) -> str:
        raise RuntimeError("disk on fire")

    agent = await _agent(
        tmp_path, ("test.bad", lambda api: api.register_command("boom", "fails", broken))
    )
    try:
        with pytest.raises(ConfigError, match=r"extension test\.bad.*RuntimeError: disk on fire"):
            await run_slash(NO_KERNEL, agent, "/boom")
        with pytest.raises(ConfigError, match="unknown command /nope"):
            await run_slash(NO_KERNEL, agent, "/nope")
    finally:
        await agent.close()


async def test_bad_names_fail_the_install_and_reload_drops_commands() -> None:
    host = ExtensionHost()
    ok = await host.install("ext.bad", lambda api: api.register_command("Bad Name", "x", str))
    assert not ok
    assert any("command name 'Bad Name'" in d.message for d in host.diagnostics)
    await host.install("ext.a", lambda api: api.register_command("a", "x", str))
    await host.install("ext.b", lambda api: api.register_command("a", "y", str))
    command = host.command("/a")
    assert command is not None
    assert command.extension == "ext.b"
    assert ("ext.b", "replaced command:/a (was registered by ext.a)") in [
        (d.extension, d.message) for d in host.diagnostics
    ]
