"""A restarted agent stops what its last process left running — only processes that carry its
own SHARD_AGENT_ID and SHARD_AGENT_HOME, never one whose environment merely ends with the id
(KERNEL_SHARD_AGENT_ID), nor one of another home's agent of the same id."""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import pytest

from shard_core.tools.bash import OWNER_VARIABLE
from shard_core.tools.environment import HOME_VARIABLE
from shard_kernel.recovery import kill_orphans
from tests.fixtures.processes import marked_sleep, process_alive


def spawn(variable: str, agent: str, home: Path) -> subprocess.Popen[bytes]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        variable: agent,
        HOME_VARIABLE: str(home),
    }
    return subprocess.Popen(marked_sleep().split(), env=env, start_new_session=True)


def test_only_the_whole_variable_of_this_home_marks_an_orphan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, other = tmp_path / "home", tmp_path / "other"
    monkeypatch.setenv("SHARD_HOME", str(home))
    agent = f"agent-{uuid.uuid4().hex[:8]}"
    bystanders = [
        spawn(f"KERNEL_{OWNER_VARIABLE}", agent, home),
        spawn(OWNER_VARIABLE, agent, other),  # the same id in another home: not this agent
    ]
    orphan = spawn(OWNER_VARIABLE, agent, home)
    try:
        killed = kill_orphans(agent)
        # what was stopped first: a miss fails here with the list, not 30 s later in a wait
        # that times out when the orphan's own `sleep 30` would end anyway
        assert len(killed) == 1, killed
        assert killed[0].startswith("a leftover process (sleep 30."), killed
        orphan.wait(timeout=30)  # SIGKILLed: it exits at once
        assert all(process_alive(p.pid) for p in bystanders)
    finally:
        for proc in [*bystanders, orphan]:
            proc.kill()
            proc.wait()
