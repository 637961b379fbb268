"""`ask_user` answered from a terminal: `shard agents attach --prompt` on a gateway agent (the
question on stdout, a wrong answer asked again, a number picks a choice; the model's result
names the terminal), and `shard run` with its stdin a terminal (a pty) for an in-process agent."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

from tests.integration.gateway.conftest import Servers, api, body, write_script
from tests.integration.gateway.test_agents_cli import run

ASK = {"question": "Which database?", "choices": ["sqlite", "postgres"]}
SCRIPT = [
    {"tool_calls": [{"name": "ask_user", "input": ASK}]},
    {"text": "Going with postgres.",
     "expect": {"last_tool_result_contains": "terminal answered: postgres"}},
]  # fmt: skip


async def test_attach_answers_a_question_on_stdin(servers: Servers, workspace: Path) -> None:
    server = servers.start()
    model = write_script(workspace.parent, SCRIPT)
    created = await api(server, "POST", "/shard/api/agents",
                        {"cwd": str(workspace), "model": model, "name": "asker"})  # fmt: skip
    assert created.code == 201, created.body
    attached = await run(server, servers.env, "attach", body(created)["id"], "--prompt",
                         "pick a database", stdin="mysql\n2\n")  # fmt: skip
    said = attached.stdout + attached.stderr
    assert attached.returncode == 0, said
    assert "? Which database?\n  1. sqlite\n  2. postgres" in said
    assert "'mysql' is not one of the choices: 'sqlite', 'postgres'; answer again:" in said
    assert "terminal answered: postgres" in said
    assert "Going with postgres." in said


def test_shard_run_asks_on_its_terminal(servers: Servers, workspace: Path) -> None:
    model = write_script(workspace.parent, SCRIPT)
    controller, terminal = pty.openpty()
    argv = [sys.executable, "-m", "shard_kernel.cli", "run", "--model", model, "--cwd",
            str(workspace), "pick a database"]  # fmt: skip
    env = {**servers.env, "PYTHONPATH": str(Path.cwd())}
    proc = subprocess.Popen(argv, stdin=terminal, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env, text=True)  # fmt: skip
    os.close(terminal)
    try:
        os.write(controller, b"5\n2\n")  # the terminal keeps the lines until they are read
        out, err = proc.communicate(timeout=120)
    finally:
        os.close(controller)
    assert proc.returncode == 0, out + err
    assert "? Which database?\n  1. sqlite\n  2. postgres" in err
    assert "'5' is not one of the choices: 'sqlite', 'postgres'; answer again:" in err
    assert "Going with postgres." in out
