"""The kernel `shard demo` and `shard batch` start: Unix sockets in a private folder, restartable.

A restarted kernel reloads its session log and its scripted model plays the next step.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path

import pytest
from jupyter_client.manager import KernelManager

from shard_kernel.local_kernels import private_kernel_manager

STEPS = [{"text": "step one"}, {"text": "step two"}, {"text": "step three"}]


@pytest.fixture
def kernel_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    for name in ("JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_CONFIG_DIR", "IPYTHONDIR"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "t"))  # what TMPDIR would say
    (tmp_path / "t").mkdir()
    (tmp_path / "work").mkdir()
    script = tmp_path / "three.json"
    script.write_text(json.dumps({"name": "three", "steps": STEPS}))
    return {
        **os.environ,
        "SHARD_HOME": str(tmp_path / "home"),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "KERNEL_SHARD_AGENT_ID": "agent-private",
        "KERNEL_SHARD_CWD": str(tmp_path / "work"),
        "KERNEL_SHARD_MODEL": f"scripted/{script}",
    }


def replies(home: Path) -> list[str]:
    (log,) = (home / "agents" / "agent-private" / "sessions").glob("*.jsonl")
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    messages = [e["details"]["message"] for e in entries if e["type"] == "message"]
    return [m["content"][0]["text"] for m in messages if m["role"] == "assistant"]


def prompt(km: KernelManager, text: str) -> None:
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        reply = kc.execute_interactive(text, timeout=60, output_hook=lambda _msg: None)
        assert reply["content"]["status"] == "ok"
    finally:
        kc.stop_channels()


def test_ipc_kernel_restarts_into_the_next_step_and_leaves_nothing(
    kernel_env: dict[str, str], tmp_path: Path
) -> None:
    with private_kernel_manager() as km:
        assert km.transport == "ipc"
        folder = Path(km.ip).parent
        assert folder.parent == tmp_path / "t"
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700  # no other user can connect
        km.start_kernel(env=kernel_env)
        prompt(km, "first")
        km.restart_kernel(now=False)  # a new process: only the log knows what was played
        prompt(km, "second")
        km.shutdown_kernel(now=False)
    assert replies(tmp_path / "home") == ["step one", "step two"]
    assert list((tmp_path / "t").iterdir()) == []
