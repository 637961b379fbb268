"""`shard agents list|create|attach|kill` against a running `shard gateway`: found by URL and by
Jupyter's runtime files, a permission prompt answered on the attached terminal's stdin, clear
errors for an unknown agent, a wrong token and no gateway at all."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from tests.integration.gateway.conftest import TOKEN, Server, Servers, write_script
from tests.integration.gateway.test_multiclient import WRITE_THEN_DONE


def shard(
    server: Server | None, env: dict[str, str], *args: str, stdin: str = "", url: bool = True
) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "shard_kernel.cli", "agents", *args]
    if server is not None and url:
        argv += ["--url", server.url]
    return subprocess.run(
        argv,
        env={**env, "SHARD_GATEWAY_TOKEN": TOKEN},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


async def run(*args: object, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return await asyncio.to_thread(shard, *args, **kwargs)  # type: ignore[arg-type]


async def test_create_list_attach_with_an_answer_and_kill(
    servers: Servers, workspace: Path
) -> None:
    server = servers.start()
    env = servers.env
    empty = await run(server, env, "list")
    assert empty.returncode == 0, empty.stderr
    assert empty.stdout.strip() == "no agents (shard agents create --cwd DIR makes one)"

    model = write_script(workspace.parent, WRITE_THEN_DONE)
    made = await run(
        server, env, "create", "--cwd", str(workspace), "--name", "writer",
        "--model", model, "--json",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    agent = json.loads(made.stdout)
    assert (agent["name"], agent["runtime_state"]) == ("writer", "running")

    found = await run(server, env, "list", url=False)  # found through the runtime files
    assert found.returncode == 0, found.stderr
    assert "writer" in found.stdout
    assert agent["id"] in found.stdout

    attached = await run(server, env, "attach", "wri", "--prompt", "write out.txt", stdin="y\n")
    assert attached.returncode == 0, attached.stdout + attached.stderr
    assert f"attached to writer ({agent['id']}) as interactive" in attached.stdout
    assert "? allow write?" in attached.stdout
    assert "Wrote it." in attached.stdout
    assert (workspace / "out.txt").read_text() == "hi\n"

    killed = await run(server, env, "kill", "writer", "--json")
    assert killed.returncode == 0, killed.stderr
    assert json.loads(killed.stdout)["runtime_state"] == "stopped"
    listed = json.loads((await run(server, env, "list", "--json")).stdout)
    assert [(a["name"], a["runtime_state"]) for a in listed] == [("writer", "stopped")]


async def test_clear_errors(servers: Servers, workspace: Path) -> None:
    server = servers.start()
    env = servers.env
    unknown = await run(server, env, "kill", "nobody")
    assert unknown.returncode == 1
    assert "no agent 'nobody'" in unknown.stderr
    assert "Traceback" not in unknown.stderr
    bad_cwd = await run(server, env, "create", "--cwd", str(workspace / "missing"))
    assert bad_cwd.returncode == 1
    assert "does not exist" in bad_cwd.stderr
    wrong = await run(server, {**env}, "list", "--token", "not-the-token-123")
    assert wrong.returncode == 1
    assert "check the token" in wrong.stderr
    server.stop()
    nothing = await run(None, env, "list")
    assert nothing.returncode == 1
    assert "no Shard gateway found" in nothing.stderr
    assert "--url" in nothing.stderr
