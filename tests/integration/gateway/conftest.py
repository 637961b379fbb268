"""Real `shard gateway` servers on 127.0.0.1 (subprocesses), isolated dirs, a scripted provider."""

from __future__ import annotations

import gc
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from tornado.httpclient import AsyncHTTPClient, HTTPRequest, HTTPResponse
from tornado.ioloop import IOLoop

from shard_kernel.kernelspec import spec_source
from tests.fixtures.http import answers_http
from tests.fixtures.ports import free_port

TOKEN = "gw-test-token-6b1f0c2d9e8a7f3c"
START_SECONDS = 180


def isolated_env(root: Path) -> dict[str, str]:
    """Temp JUPYTER_*, IPYTHONDIR, SHARD_HOME, XDG_CONFIG_HOME; the shard kernelspec installed."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    for name, sub in [
        ("JUPYTER_DATA_DIR", "jdata"),
        ("JUPYTER_RUNTIME_DIR", "jruntime"),
        ("JUPYTER_CONFIG_DIR", "jconfig"),
        ("IPYTHONDIR", "ipython"),
        ("SHARD_HOME", "shard-home"),
        ("XDG_CONFIG_HOME", "xdg"),
    ]:
        (root / sub).mkdir(parents=True, exist_ok=True)
        env[name] = str(root / sub)
    env["JUPYTER_PATH"] = str(root / "jdata")
    env["JUPYTER_PLATFORM_DIRS"] = "1"
    env.pop("JUPYTER_CONFIG_PATH", None)
    env.pop("JUPYTER_TOKEN", None)
    env["JUPYTER_PORT_RETRIES"] = "0"  # a server binds the port it was given or fails
    spec = root / "jdata" / "kernels" / "shard"
    if not spec.exists():
        shutil.copytree(spec_source(), spec)
        kernel_json = json.loads((spec / "kernel.json").read_text())
        kernel_json["argv"][0] = sys.executable
        (spec / "kernel.json").write_text(json.dumps(kernel_json))
    return env


def write_script(folder: Path, steps: list[dict[str, Any]], name: str = "script.json") -> str:
    path = folder / name
    path.write_text(json.dumps({"name": "test", "steps": steps}))
    return f"scripted/{path}"


def descendants(pid: int) -> list[int]:
    """Every live process below `pid` (read from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found: list[int] = []
    stack = [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@dataclass
class Server:
    """One server subprocess: its URL, token, log file, and the processes it started."""

    proc: subprocess.Popen[bytes]
    port: int
    token: str
    log: Path
    env: dict[str, str]
    seen_children: set[int] = field(default_factory=set[int])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def kernels(self) -> list[int]:
        pids = descendants(self.proc.pid)
        self.seen_children.update(pids)
        return pids

    def stop(self) -> list[int]:
        """SIGTERM and wait; returns the processes that outlived it (then killed)."""
        self.kernels()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        left = [pid for pid in self.seen_children if alive(pid)]
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        return left


def start_process(argv: list[str], env: dict[str, str], log: Path, port: int, token: str) -> Server:
    handle = log.open("ab")
    proc = subprocess.Popen(argv, env=env, stdout=handle, stderr=subprocess.STDOUT)
    handle.close()
    server = Server(proc, port, token, log, env)
    # a bound for a server that never listens, not a speed check: a start costs about 3 s of
    # CPU, and on a 2-core machine at load 15 three starts took over 60 s (they then listened)
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited {proc.returncode}:\n{log.read_text()[-3000:]}")
        if answers_http(port):
            return server
        time.sleep(0.1)
    server.stop()
    tail = log.read_text()[-3000:]
    raise RuntimeError(f"server did not listen within {START_SECONDS} s:\n{tail}")


class Servers:
    """Start `shard gateway` subprocesses; every one is stopped at teardown."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.env = isolated_env(root)
        self.started: list[Server] = []

    def start(
        self,
        *args: str,
        env: dict[str, str] | None = None,
        token: str = TOKEN,
        pool: int = 0,
        port: int | None = None,
    ) -> Server:
        """`pool`: the warm pool's size (test_pool.py's tests set it; the others start their
        agents cold, as they did before there was a pool, without a spare kernel each).
        `port`: a stopped server's, to come back where its clients look (default a free one)."""
        port = port or free_port()
        argv = [sys.executable, "-m", "shard_kernel.gateway", "--port", str(port)]
        argv += ["--token", token, "--allow-root", *args]
        argv += ["--set", f"PooledKernelManager.pool_size={pool}"]
        log = self.root / f"server-{len(self.started)}.log"
        server = start_process(argv, {**self.env, **(env or {})}, log, port, token)
        self.started.append(server)
        return server

    def stop_all(self) -> list[int]:
        return [pid for s in reversed(self.started) for pid in s.stop()]


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[Servers]:
    pool = Servers(tmp_path)
    yield pool
    pool.stop_all()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


async def api(
    server: Server,
    method: str,
    path: str,
    body: Any = None,
    *,
    token: str | None = TOKEN,
    headers: dict[str, str] | None = None,
    raw: bytes | None = None,
) -> HTTPResponse:
    """One REST call; never raises for an HTTP status."""
    all_headers = dict(headers or {})
    if token is not None:
        all_headers.setdefault("Authorization", f"token {token}")
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    if data is None and method in ("POST", "PUT", "PATCH"):
        data = b""
    request = HTTPRequest(
        server.url.rstrip("/") + path,
        method=method,
        headers=all_headers,
        body=data,
        request_timeout=120,
        follow_redirects=False,
    )
    return await AsyncHTTPClient().fetch(request, raise_error=False)


def body(response: HTTPResponse) -> Any:
    return json.loads(response.body or b"null")


@pytest.fixture(autouse=True)
def collect_after() -> Iterator[None]:
    """Collect at the end of each test, so a socket a test left open is reported by that test
    (a collection during a later test would report it there).

    tornado keeps a map of asyncio loop → IOLoop, and drops a closed loop's entry only when the
    next IOLoop is made: until then the loop's registered streams stay reachable. Dropping the
    closed loops here lets this test's collection find its own leaks."""
    yield
    for loop in list(IOLoop._ioloop_for_asyncio):  # pyright: ignore[reportPrivateUsage]
        if loop.is_closed():
            IOLoop._ioloop_for_asyncio.pop(loop, None)  # pyright: ignore[reportPrivateUsage]
    gc.collect()
