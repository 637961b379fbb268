"""A real `shard` kernel: a background task outlives its cell, `/tasks` lists it, and shutting
the kernel down ends its process group (no orphan left in the process table)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tests.fixtures.processes import find_process, group_alive, marked_sleep
from tests.integration.kernel.conftest import StartKernel
from tests.integration.kernel.test_kernel_turns import _reply


def _host_group(sleep: str) -> int:
    deadline = time.monotonic() + 30
    while (found := find_process(sleep)) is None:
        assert time.monotonic() < deadline, f"{sleep} never started"
        time.sleep(0.05)
    return found[1]


@pytest.mark.parametrize("sandbox", ["bwrap", "off"])
def test_kernel_shutdown_ends_the_task_group(start_kernel: StartKernel, sandbox: str) -> None:
    # Unsandboxed nothing but the disposer ends the group: bwrap's --die-with-parent is not there.
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "shard" / "config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"sandbox": {"mode": sandbox}}))
    sleep = marked_sleep()
    command = f"echo started; {sleep}; echo never"
    km, kc = start_kernel(
        [
            {"tool_calls": [{"name": "bash", "input": {"command": command, "background": True}}]},
            {"text": "It runs in the background."},
        ],
        allow="Bash(echo:*)\nBash(sleep:*)",
    )
    assert _reply(kc, kc.execute("start it"))["status"] == "ok"
    pgid = _host_group(sleep)  # the cell is over; the task is not
    listing = kc.execute("/tasks")
    assert _reply(kc, listing)["status"] == "ok"
    outputs: list[str] = []
    while True:
        msg = kc.get_iopub_msg(timeout=10)
        if msg["parent_header"].get("msg_id") != listing:
            continue
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
        outputs.append(json.dumps(msg["content"]))
    assert "| running |" in "".join(outputs)
    assert group_alive(pgid)
    km.shutdown_kernel(now=False)
    assert not group_alive(pgid)
    assert find_process(sleep) is None
