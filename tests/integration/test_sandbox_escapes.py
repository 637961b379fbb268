"""Escapes the permission gate let through, stopped by the OS sandbox (bubblewrap).

Each attempt runs with the default sandbox and fails; the same command with the sandbox off (or
the network setting on) succeeds, so each test could fail. Work inside the workspace still works.
The fake HOME, Jupyter runtime dir and SHARD_HOME live under /var/tmp, not /tmp: /tmp is private
in the sandbox, and they must be hidden for their own sake, not because /tmp is.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import jupyter_core.paths
import pytest

from shard_core.contracts import ToolContext
from shard_core.engine.config import ShardConfig
from shard_core.protocol.events import TurnEndEvent
from shard_core.sdk import create_agent
from shard_core.tools import BashTool
from shard_core.tools.sandbox import Sandbox, SandboxPolicy, probe_bwrap
from shard_core.types import JsonObject, ToolResult

pytestmark = pytest.mark.skipif(
    probe_bwrap().bwrap is None, reason=f"bubblewrap cannot run here: {probe_bwrap().problem}"
)
KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nfake-key-for-the-sandbox-test\n"
TOKEN = "jupyter-token-for-the-sandbox-test"
OFF = Sandbox(SandboxPolicy(mode="off"))


@dataclass
class Box:
    outside: Path
    home: Path
    runtime: Path
    workspace: Path
    ctx: ToolContext


@pytest.fixture
def box(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Box]:
    outside = Path(tempfile.mkdtemp(prefix="shard-sandbox-", dir="/var/tmp"))
    try:
        home = outside / "home"
        (home / ".ssh").mkdir(parents=True)
        (home / ".ssh" / "id_rsa").write_text(KEY)
        runtime = outside / "runtime"
        runtime.mkdir()
        (runtime / "jpserver-1.json").write_text(json.dumps({"token": TOKEN}))
        for name, value in {
            "HOME": home,
            "JUPYTER_RUNTIME_DIR": runtime,
            "SHARD_HOME": outside / "shard-home",
            "XDG_CONFIG_HOME": outside / "xdg",
        }.items():
            monkeypatch.setenv(name, str(value))
        workspace = tmp_path / "ws"
        workspace.mkdir()
        ctx = ToolContext(
            cwd=workspace, roots=[workspace], agent_id="agent-me", session_id="s", call_id="c"
        )
        yield Box(outside, home, runtime, workspace, ctx)
    finally:
        shutil.rmtree(outside)


async def bash(box: Box, command: str, sandbox: Sandbox | None = None) -> ToolResult:
    payload: JsonObject = {"command": command, "timeout": 60}
    return await BashTool(sandbox=sandbox).execute(payload, box.ctx)


def exit_code(result: ToolResult) -> object:
    return result.details["exit_code"]


async def test_reading_the_ssh_key_fails(box: Box) -> None:
    result = await bash(box, "cat ~/.ssh/id_rsa")
    assert result.details["sandbox"] == "bwrap"
    assert exit_code(result) == 1
    assert "No such file or directory" in result.text
    assert "fake-key" not in result.text
    assert "fake-key" in (await bash(box, "cat ~/.ssh/id_rsa", OFF)).text


async def test_writing_outside_the_workspace_fails(box: Box, tmp_path: Path) -> None:
    result = await bash(box, f"echo x > {box.home}/escaped")
    assert exit_code(result) == 1
    assert "Read-only file system" in result.text
    assert not (box.home / "escaped").exists()
    # /tmp is the command's own: writing there works but never reaches the host's /tmp.
    result = await bash(box, f"echo x > {tmp_path}/escaped && cat {tmp_path}/escaped")
    assert exit_code(result) == 0
    assert not (tmp_path / "escaped").exists()
    result = await bash(box, "mount -o remount,rw / ; touch /etc/shard-escaped")
    assert "Read-only file system" in result.text
    assert not Path("/etc/shard-escaped").exists()
    assert exit_code(await bash(box, f"echo x > {box.home}/escaped", OFF)) == 0


async def test_opening_a_socket_fails(box: Box) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        port = server.getsockname()[1]
        connect = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5)"
        command = f'{sys.executable} -c "{connect}" && echo connected'
        result = await bash(box, command)
        assert exit_code(result) == 1
        assert "ConnectionRefusedError" in result.text
        allowed = Sandbox(SandboxPolicy(network=True))
        result = await bash(box, command, allowed)
        assert (result.details["sandbox"], result.text) == ("bwrap", "connected\n\nexit code 0")


async def test_reading_the_jupyter_runtime_dir_fails(box: Box) -> None:
    assert Path(jupyter_core.paths.jupyter_runtime_dir()) == box.runtime
    result = await bash(box, f"ls -A {box.runtime}; cat {box.runtime}/jpserver-1.json")
    assert exit_code(result) == 1
    assert TOKEN not in result.text
    assert result.text.startswith("cat: ")
    assert TOKEN in (await bash(box, f"cat {box.runtime}/jpserver-1.json", OFF)).text


async def test_shard_state_config_and_other_agents_are_hidden(box: Box) -> None:
    other = box.outside / "other-ws"
    other.mkdir()
    (other / "theirs.txt").write_text("another agent's file\n")
    manifest = box.outside / "shard-home" / "agents" / "agent-other" / "manifest.json"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(json.dumps({"id": "agent-other", "cwd": str(other)}))
    config = box.outside / "xdg" / "shard" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text('{"providers": {"anthropic": {"api_key": "sk-config-key"}}}')
    command = f"cat {other}/theirs.txt; cat {config}; ls -A {manifest.parent.parent}"
    result = await bash(box, command)
    assert "another agent's file" not in result.text
    assert "sk-config-key" not in result.text
    assert "agent-other" not in result.text
    seen = (await bash(box, command, OFF)).text
    assert "another agent's file" in seen
    assert "sk-config-key" in seen


async def test_host_processes_are_out_of_sight(box: Box, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHARD_TEST_PROCESS_SECRET", "visible-to-the-host-only")
    pid = os.getpid()
    command = f"cat /proc/{pid}/environ; ls /proc/{pid}/root/ >/dev/null && echo escaped-root"
    result = await bash(box, command)
    assert "visible-to-the-host-only" not in result.text
    assert "escaped-root" not in result.text


async def test_work_in_the_workspace_still_works(box: Box) -> None:
    (box.workspace / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (box.workspace / "test_calc.py").write_text(
        "import tempfile\nfrom calc import add\n\n\ndef test_add(tmp_path):\n"
        "    (tmp_path / 'x').write_text('ok')\n    assert add(2, 3) == 5\n"
    )
    command = (
        "git init -q && git add calc.py && git status --short && "
        f"{sys.executable} -m pytest -q && echo made > out.txt"
    )
    result = await bash(box, command)
    assert result.details["sandbox"] == "bwrap"
    assert exit_code(result) == 0, result.text
    assert "A  calc.py\n?? test_calc.py" in result.text
    assert "1 passed" in result.text
    assert (box.workspace / "out.txt").read_text() == "made\n"
    assert (box.workspace / ".pytest_cache").is_dir()
    status = subprocess.run(
        ["git", "status", "--short"], cwd=box.workspace, capture_output=True, text=True, check=True
    )
    assert "A  calc.py" in status.stdout


async def test_an_agent_allowed_everything_still_cannot_escape(box: Box, tmp_path: Path) -> None:
    steal = f"{sys.executable} -c \"print(open('{box.home}/.ssh/id_rsa').read())\""
    plant = f"{sys.executable} -c \"open('{box.home}/planted', 'w').write('x')\""
    script = tmp_path / "escape.json"
    steps: list[JsonObject] = [
        {"tool_calls": [{"name": "bash", "input": {"command": steal}}]},
        {"tool_calls": [{"name": "bash", "input": {"command": plant}}]},
        {"text": "done"},
    ]
    script.write_text(json.dumps({"name": "escape", "steps": steps}))
    agent = await create_agent(
        cwd=box.workspace, model=f"scripted/{script}", config=ShardConfig(), allow=["Bash(*)"]
    )
    try:
        events = [e async for e in agent.prompt("try to escape")]
        results = [
            e.details.result
            for e in agent.session.store.branch()
            if e.type == "tool_result"  # pyright: ignore[reportAttributeAccessIssue]
        ]
    finally:
        await agent.close()
    assert isinstance(events[-1], TurnEndEvent)
    assert [r.details.get("sandbox") for r in results] == ["bwrap", "bwrap"]
    assert "FileNotFoundError" in results[0].text
    assert "fake-key" not in results[0].text
    assert "Read-only file system" in results[1].text
    assert not (box.home / "planted").exists()


async def test_a_toolchain_under_tmp_stays_reachable(box: Box, tmp_path: Path) -> None:
    """A checkout or venv in a temp folder (a CI clone under /tmp) stays runnable: the private
    /tmp hides everything else there, so the command's PATH folders under /tmp are bound back,
    read-only."""
    tools = tmp_path / "venv" / "bin"
    tools.mkdir(parents=True)
    (tools / "hello-tool").write_text("#!/bin/sh\necho tool ran\n")
    (tools / "hello-tool").chmod(0o755)
    command = f"PATH={tools}:$PATH; hello-tool && touch {tools}/planted"
    env = {**os.environ, "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}"}
    ctx = dataclasses.replace(box.ctx, env=env)  # the command's environment names the folder
    result = await BashTool().execute({"command": command, "timeout": 60}, ctx)
    assert result.details["sandbox"] == "bwrap"
    assert "tool ran" in result.text
    assert not (tools / "planted").exists()  # readable, not writable
