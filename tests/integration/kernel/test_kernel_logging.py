"""The agent kernel's log: quiet by default, warnings and errors kept, debug when asked."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from jupyter_client.manager import KernelManager

from tests.integration.kernel.conftest import write_script

pytestmark = pytest.mark.integration


def _stderr_of_one_cell(
    jupyter_dirs: Path, workspace: Path, model: str, *extra: str
) -> tuple[str, str]:
    """(the cell's reply status, the kernel's stderr) for one prompt."""
    env = {**os.environ, "KERNEL_SHARD_AGENT_ID": "agent-log", "KERNEL_SHARD_CWD": str(workspace),
           "KERNEL_SHARD_MODEL": model}  # fmt: skip
    log = jupyter_dirs / "kernel-stderr.txt"
    km = KernelManager(kernel_name="shard")
    with log.open("wb") as err:
        km.start_kernel(env=env, extra_arguments=list(extra), stderr=err)
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        reply = kc.execute_interactive("hello", timeout=60)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=False)
    return reply["content"]["status"], log.read_text()


def test_the_default_log_has_no_debug_lines_and_keeps_errors(
    jupyter_dirs: Path, workspace: Path
) -> None:
    status, stderr = _stderr_of_one_cell(jupyter_dirs, workspace, "no-such-provider/model")
    assert status == "error"
    assert "shard agent failed to start" in stderr  # an ERROR line still reaches the log
    assert "MESSAGE TYPE" not in stderr


def test_log_level_debug_logs_every_request(jupyter_dirs: Path, workspace: Path) -> None:
    script = write_script(jupyter_dirs, [{"text": "Hi."}])
    status, stderr = _stderr_of_one_cell(
        jupyter_dirs, workspace, f"scripted/{script}", "--log-level=DEBUG"
    )
    assert status == "ok"
    assert "MESSAGE TYPE:execute_request" in stderr
