"""How the workspace kernel is confined: the bwrap prefix its command gets, the fallbacks, the
`sandbox.kernel` switch, and the config an extension reads through `api.settings`."""

from __future__ import annotations

from pathlib import Path

import pytest

from shard_core.contracts import ToolContext
from shard_core.engine.config import ShardConfig
from shard_core.engine.extension_host import ExtensionHost
from shard_core.tools.sandbox import Probe, Sandbox, SandboxPolicy
from shard_kernel.notebook_tools.confined import SandboxError, sandbox_prefix
from shard_kernel.notebook_tools.extension import kernel_sandbox

BWRAP = Probe("/usr/bin/bwrap")
MISSING = Probe(None, "bubblewrap (bwrap) is not installed")


def _ctx(ws: Path) -> ToolContext:
    return ToolContext(cwd=ws, roots=[ws], agent_id="agent-x", session_id="s", call_id="c")


async def test_the_prefix_binds_the_socket_folder_and_ends_with_the_separator(
    tmp_path: Path,
) -> None:
    ws, folder = tmp_path / "ws", tmp_path / "sockets"
    ws.mkdir()
    folder.mkdir()
    prefix = await sandbox_prefix(Sandbox(probe=lambda: BWRAP), _ctx(ws), ws, folder, {})
    assert prefix is not None
    assert prefix[0] == "/usr/bin/bwrap"
    assert "--unshare-net" in prefix
    for root in (ws, folder):  # both writable, bound where they are
        at = prefix.index(str(root))
        assert prefix[at - 1 : at + 2] == ["--bind-try", str(root), str(root)]
    tail = prefix[prefix.index("--chdir") :]
    assert tail == [
        "--chdir", str(ws),
        "--setenv", "JPY_PARENT_PID", "1",
        "--setenv", "IPYTHONDIR", "/tmp/ipython",
        "--setenv", "MPLCONFIGDIR", "/tmp/matplotlib",
        "--",
    ]  # fmt: skip


async def test_a_set_ipython_dir_is_kept_and_network_follows_the_policy(tmp_path: Path) -> None:
    sandbox = Sandbox(SandboxPolicy(network=True), probe=lambda: BWRAP)
    env = {"IPYTHONDIR": "/somewhere", "MPLCONFIGDIR": "/else"}
    prefix = await sandbox_prefix(sandbox, None, tmp_path, tmp_path, env)
    assert prefix is not None
    assert "--unshare-net" not in prefix
    assert "IPYTHONDIR" not in prefix
    assert "MPLCONFIGDIR" not in prefix


async def test_no_bwrap_falls_back_unless_required(tmp_path: Path) -> None:
    fallback = Sandbox(probe=lambda: MISSING)
    assert await sandbox_prefix(fallback, None, tmp_path, tmp_path, {}) is None
    off = Sandbox(SandboxPolicy(mode="off"), probe=lambda: BWRAP)
    assert await sandbox_prefix(off, None, tmp_path, tmp_path, {}) is None
    required = Sandbox(SandboxPolicy(mode="required"), probe=lambda: MISSING)
    with pytest.raises(SandboxError, match=r"'required' but no sandbox .* no kernel was started"):
        await sandbox_prefix(required, None, tmp_path, tmp_path, {})


def test_the_kernel_switch_and_settings_come_from_the_agents_config() -> None:
    host = ExtensionHost()
    assert kernel_sandbox(host) is not None  # no settings at all: sandboxed
    config = ShardConfig.model_validate(
        {"sandbox": {"network": True, "extra_ro": ["/opt/x"]}, "providers": {"openai": {}}}
    )
    host.use_settings(config.model_dump(mode="json", exclude={"providers", "credentials"}))
    sandbox = kernel_sandbox(host)
    assert sandbox is not None
    assert sandbox.policy == SandboxPolicy(network=True, extra_ro=("/opt/x",))
    assert host.settings("providers") == {}
    host.use_settings({"sandbox": {"kernel": "off"}})
    assert kernel_sandbox(host) is None


async def test_an_agents_network_override_reaches_the_kernels_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from shard_core.sdk import create_agent

    monkeypatch.setenv("SHARD_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    agent = await create_agent(
        cwd=tmp_path, model="scripted/demo", config=ShardConfig(), env={}, sandbox_network=True
    )
    try:
        settings = agent.host.settings("sandbox")
    finally:
        await agent.close()
    assert settings["network"] is True
    assert settings["kernel"] == "on"
