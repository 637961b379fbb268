"""`shard agents attach --prompt` exits with its turn's status, as `shard run` does: a write the
person on the terminal denies leaves the turn blocked, exit 3 (it was 0 for any completed turn)."""

from __future__ import annotations

import json
from pathlib import Path

from shard_kernel.exit_codes import ExitCode
from tests.integration.gateway.conftest import Servers, write_script
from tests.integration.gateway.test_agents_cli import run
from tests.integration.gateway.test_multiclient import WRITE_THEN_DONE

GIVE_UP = [WRITE_THEN_DONE[0], {"text": "I could not write it."}]


async def test_a_denied_write_is_blocked_exit_3(servers: Servers, workspace: Path) -> None:
    server = servers.start()
    env = servers.env
    model = write_script(workspace.parent, GIVE_UP)
    made = await run(
        server, env, "create", "--cwd", str(workspace), "--name", "denied", "--model", model,
        "--json",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    agent = json.loads(made.stdout)

    attached = await run(
        server, env, "attach", agent["id"], "--prompt", "write out.txt", stdin="n\n"
    )

    assert attached.returncode == ExitCode.BLOCKED == 3, attached.stdout + attached.stderr
    assert "? allow write?" in attached.stdout
    assert "I could not write it." in attached.stdout
    assert not (workspace / "out.txt").exists()
    server.stop()
