"""Isolated Jupyter and Shard directories, the kernelspec installed there, kernel helpers."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.manager import KernelManager
from jupyter_client.session import Session

from shard_kernel.kernelspec import spec_source


@pytest.fixture
def jupyter_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Temp JUPYTER_*, IPYTHONDIR, SHARD_HOME and XDG_CONFIG_HOME; the shard spec installed."""
    for name, sub in [
        ("JUPYTER_DATA_DIR", "jdata"),
        ("JUPYTER_RUNTIME_DIR", "jruntime"),
        ("JUPYTER_CONFIG_DIR", "jconfig"),
        ("IPYTHONDIR", "ipython"),
        ("SHARD_HOME", "shard-home"),
        ("XDG_CONFIG_HOME", "xdg"),
    ]:
        (tmp_path / sub).mkdir()
        monkeypatch.setenv(name, str(tmp_path / sub))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")
    shutil.copytree(spec_source(), tmp_path / "jdata" / "kernels" / "shard")
    return tmp_path


def write_script(folder: Path, steps: list[dict[str, Any]], name: str = "script.json") -> Path:
    path = folder / name
    path.write_text(json.dumps({"name": "test", "steps": steps}))
    return path


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


StartKernel = Callable[..., tuple[KernelManager, BlockingKernelClient]]


def another_client(km: KernelManager) -> BlockingKernelClient:
    """A second client with its own session: two clients sharing one session id share one
    ZMQ identity, and the kernel's ROUTER socket then loses one of them."""
    kc = km.client(session=Session(key=km.session.key))
    kc.start_channels()
    return kc


@pytest.fixture
def start_kernel(jupyter_dirs: Path, workspace: Path) -> Iterator[StartKernel]:
    managers: list[KernelManager] = []
    clients: list[BlockingKernelClient] = []

    def start(
        steps: list[dict[str, Any]] | None = None, **env: str
    ) -> tuple[KernelManager, BlockingKernelClient]:
        kernel_env = dict(os.environ)
        kernel_env.setdefault("KERNEL_SHARD_AGENT_ID", "agent-test")
        kernel_env["KERNEL_SHARD_CWD"] = str(workspace)
        if steps is not None:
            script = write_script(jupyter_dirs, steps)
            kernel_env["KERNEL_SHARD_MODEL"] = f"scripted/{script}"
        kernel_env.update({f"KERNEL_SHARD_{k.upper()}": v for k, v in env.items()})
        km = KernelManager(kernel_name="shard")
        km.start_kernel(env=kernel_env)
        kc = km.client()
        kc.start_channels()
        kc.wait_for_ready(timeout=60)
        managers.append(km)
        clients.append(kc)
        return km, kc

    yield start
    for kc in clients:
        kc.stop_channels()
    for km in managers:
        if km.has_kernel:
            km.shutdown_kernel(now=True)
