"""A real `shard gateway` on 127.0.0.1 and a real IPython shell with `%load_ext shard_kernel`.

The shell runs in the test process with temp SHARD_HOME / Jupyter / IPython dirs; the gateway is
a subprocess with its own temp dirs (tests/integration/gateway/conftest.py). Widgets get a
recording comm (the `comm` package's documented replacement point) so a test can read what a
browser would have been sent; clicks go in through the widget's own message handler.
"""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

from shard_kernel.magics import ShardMagics
from tests.integration.gateway.conftest import TOKEN, Server, Servers, write_script
from tests.unit.widgets import _support
from tests.unit.widgets._support import RecordingComm


@pytest.fixture
def shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[InteractiveShell]:
    for name, sub in [
        ("SHARD_HOME", "home"),
        ("XDG_CONFIG_HOME", "xdg"),
        ("IPYTHONDIR", "ipython"),
        ("JUPYTER_RUNTIME_DIR", "shell-runtime"),
        ("JUPYTER_CONFIG_DIR", "shell-jconfig"),
        ("JUPYTER_DATA_DIR", "shell-jdata"),
    ]:
        (tmp_path / sub).mkdir(exist_ok=True)
        monkeypatch.setenv(name, str(tmp_path / sub))
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "SHARD_GATEWAY_URL", "SHARD_GATEWAY_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "shard_kernel")
    yield ip
    ip.run_line_magic("unload_ext", "shard_kernel")
    InteractiveShell.clear_instance()


@pytest.fixture(autouse=True)
def recording_comms(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[RecordingComm]]:
    yield from _support.recording_comms(monkeypatch)


@pytest.fixture
def gateway(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    """One gateway, named to the shell through SHARD_GATEWAY_URL / SHARD_GATEWAY_TOKEN."""
    pool = Servers(tmp_path / "gw")
    server = pool.start()
    monkeypatch.setenv("SHARD_GATEWAY_URL", server.url)
    monkeypatch.setenv("SHARD_GATEWAY_TOKEN", TOKEN)
    yield server
    assert pool.stop_all() == [], "processes outlived the gateway"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


def rest(server: Server, method: str, path: str, body: Any = None) -> Any:
    data = json.dumps(body).encode() if body is not None else (b"" if method == "POST" else None)
    request = urllib.request.Request(
        server.url.rstrip("/") + path,
        data=data,
        method=method,
        headers={"Authorization": f"token {TOKEN}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read() or b"null")


def create_agent(
    server: Server, workspace: Path, name: str, steps: list[dict[str, Any]]
) -> dict[str, Any]:
    model = write_script(workspace.parent, steps, name=f"script-{name}.json")
    return rest(
        server,
        "POST",
        "/shard/api/agents",
        {"cwd": str(workspace), "model": model, "name": name},
    )


def magics(shell: InteractiveShell) -> ShardMagics:
    assert shell.magics_manager is not None
    found = shell.magics_manager.registry["ShardMagics"]
    assert isinstance(found, ShardMagics)
    return found


def wait_until(condition: Callable[[], object], within: float = 30.0, what: str = "") -> None:
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not met within {within} s: {what}")
        time.sleep(0.05)


def texts(events: list[dict[str, Any]]) -> str:
    complete = [e for e in events if e["type"] == "message_complete"]
    return " ".join(b.get("text", "") for e in complete for b in e["message"]["content"])
