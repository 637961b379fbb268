"""A restarted agent stops what its last process left running — only processes that carry its
own SHARD_AGENT_ID, never one whose environment merely ends with it (KERNEL_SHARD_AGENT_ID)."""

from __future__ import annotations

import os
import subprocess
import uuid

from shard_core.tools.bash import OWNER_VARIABLE
from shard_kernel.recovery import kill_orphans
from tests.fixtures.processes import marked_sleep, process_alive


def spawn(variable: str, agent: str) -> subprocess.Popen[bytes]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), variable: agent}
    return subprocess.Popen(marked_sleep().split(), env=env, start_new_session=True)


def test_only_the_whole_variable_marks_an_orphan() -> None:
    agent = f"agent-{uuid.uuid4().hex[:8]}"
    bystander = spawn(f"KERNEL_{OWNER_VARIABLE}", agent)
    orphan = spawn(OWNER_VARIABLE, agent)
    try:
        killed = kill_orphans(agent)
        orphan.wait(timeout=30)
        assert len(killed) == 1
        assert killed[0].startswith("a leftover process (sleep 30.")
        assert process_alive(bystander.pid)
    finally:
        bystander.kill()
        bystander.wait()
        orphan.kill()
        orphan.wait()
