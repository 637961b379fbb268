"""Bench helpers for the gateway: a `shard gateway` subprocess in temp dirs, REST calls, scripts.

Everything runs on 127.0.0.1 with a scripted provider; nothing reaches the network.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shard_kernel.kernelspec import spec_source
from tests.fixtures.http import answers_http

TOKEN = "bench-token-0f3a9c1e5b7d"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def isolated_env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    for name in ("JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_CONFIG_DIR", "IPYTHONDIR"):
        (root / name.lower()).mkdir(parents=True, exist_ok=True)
        env[name] = str(root / name.lower())
    for name, sub in (("SHARD_HOME", "shard-home"), ("XDG_CONFIG_HOME", "xdg")):
        (root / sub).mkdir(exist_ok=True)
        env[name] = str(root / sub)
    env["JUPYTER_PLATFORM_DIRS"] = "1"
    spec = root / "jupyter_data_dir" / "kernels" / "shard"
    shutil.copytree(spec_source(), spec, dirs_exist_ok=True)
    kernel_json = json.loads((spec / "kernel.json").read_text())
    kernel_json["argv"][0] = sys.executable
    (spec / "kernel.json").write_text(json.dumps(kernel_json))
    return env


@dataclass
class Gateway:
    proc: subprocess.Popen[bytes]
    port: int
    root: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def rest(self, method: str, path: str, body: Any = None) -> Any:
        data = json.dumps(body).encode() if body is not None else b"" if method == "POST" else None
        request = urllib.request.Request(
            self.url.rstrip("/") + path,
            data=data,
            method=method,
            headers={"Authorization": f"token {TOKEN}"},
        )
        try:
            with urllib.request.urlopen(request, timeout=300) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as exc:
            raise RuntimeError(f"{method} {path}: {exc.code} {exc.read()[:300]!r}") from None

    def script(self, steps: list[dict[str, Any]], name: str = "script.json") -> str:
        path = self.root / name
        path.write_text(json.dumps({"name": "bench", "steps": steps}))
        return f"scripted/{path}"

    def workspace(self) -> str:
        ws = self.root / "ws"
        ws.mkdir(exist_ok=True)
        return str(ws)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.root, ignore_errors=True)


def start_gateway(*args: str) -> Gateway:
    """`shard gateway` (jupyter_server with the Shard extension) on a free port; without the
    warm pool unless `args` set its size (a pool kernel refilling in the background would share
    the CPU with what a bench measures; bench/pool_start.py measures the pool)."""
    if not any(a.startswith("PooledKernelManager.") for a in args):
        args = ("--set", "PooledKernelManager.pool_size=0", *args)

    def command(port: int) -> list[str]:
        gateway = [sys.executable, "-m", "shard_kernel.gateway"]
        return [*gateway, "--port", str(port), "--token", TOKEN, *args]

    return _launch(command)


def start_plain_server() -> Gateway:
    """jupyter_server as installed, the Shard extension turned off: an anchor for what the
    server itself does (stock kernels, its own REST and WebSocket handlers)."""

    def command(port: int) -> list[str]:
        return [sys.executable, "-m", "jupyter_server", "--ServerApp.ip=127.0.0.1",
                f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
                "--ServerApp.open_browser=False", f"--IdentityProvider.token={TOKEN}",
                "--ServerApp.jpserver_extensions={'shard_kernel.gateway': False}"]  # fmt: skip

    return _launch(command)


def _launch(command: Callable[[int], list[str]]) -> Gateway:
    """Run `command(port)` on a free port in temp dirs; wait until the server answers HTTP."""
    root = Path(tempfile.mkdtemp(prefix="shard-bench-"))
    env = isolated_env(root)
    port = free_port()
    argv = command(port)
    if os.geteuid() == 0:
        argv.append("--allow-root")  # both servers take it
    with (root / "server.log").open("ab") as log:  # the server keeps its own copy of the fd
        proc = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT)
    gateway = Gateway(proc, port, root)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError((root / "server.log").read_text()[-2000:])
        if answers_http(port):  # not a bare TCP connect: a kernel may hold a port chosen free
            return gateway
        time.sleep(0.1)
    gateway.stop()
    raise RuntimeError("the server did not start")


def process_usage(pid: int) -> tuple[int, float]:
    """Open file descriptors and RSS (MiB) of a process, from /proc."""
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    rss_kib = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss_kib = int(line.split()[1])
    return fds, rss_kib / 1024


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found
