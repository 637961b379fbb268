"""LabServer: a throwaway `jupyter lab` on 127.0.0.1 with its own Jupyter dirs and the shard spec.

Every Jupyter and Shard directory is a temp one (nothing leaks into the home directory), the
`shard` kernelspec and the prebuilt Lab extension are copied into the temp data dir, the gateway
extension is enabled there as an installed wheel enables it, and the announcements plugin is
disabled (no news toast over the notebook). `stop` shuts the server down through its API, which
shuts its kernels down, then ends whatever is left of the processes it started, by pid.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from shard_kernel.kernelspec import spec_source
from tests.fixtures.ports import free_port

REPO = Path(__file__).resolve().parents[2]
EXTENSION_FILE = "shard_kernel.gateway.json"
STOP_SECONDS = 60
"""how long Lab gets to stop its kernels and exit before it is killed (its kernels, in sessions of
their own, then outlive it and are reported left running)"""
LAB_EXTENSION = REPO / "share" / "jupyter" / "labextensions" / "shard-jupyterlab"
DIRS = {
    "JUPYTER_CONFIG_DIR": "jconfig",
    "JUPYTER_DATA_DIR": "jdata",
    "JUPYTER_RUNTIME_DIR": "jruntime",
    "IPYTHONDIR": "ipython",
    "SHARD_HOME": "shard-home",
    "XDG_CONFIG_HOME": "xdg",
}


class LabServer:
    def __init__(
        self,
        base: Path,
        kernel_env: dict[str, str],
        *,
        python: str = sys.executable,
        extra_args: tuple[str, ...] = (),
    ) -> None:
        self.python = python  # another environment's (tests/fixtures/rtc.py) runs another Lab
        self.extra_args = extra_args
        self.base = base
        self.root = base / "notebooks"
        self.workspace = base / "workspace"
        self.port = free_port()
        self.token = secrets.token_hex(16)
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = self._environment(kernel_env)
        self.log_path = base / "lab.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.kernel_pids: set[int] = set()

    def _environment(self, kernel_env: dict[str, str]) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env.pop("OPENAI_BASE_URL", None)
        for name, sub in DIRS.items():
            (self.base / sub).mkdir(parents=True)
            env[name] = str(self.base / sub)
        env["JUPYTER_PLATFORM_DIRS"] = "1"
        # the temp data dir before the environment's: in a venv jupyter_core prefers the venv's
        # share/jupyter, whose copy of the Lab extension is the one installed, not this checkout's
        env["JUPYTER_PREFER_ENV_PATH"] = "0"
        env["JUPYTER_PORT_RETRIES"] = "0"  # Lab binds the port it was given or fails
        env.update(kernel_env)
        return env

    def start(self, timeout: float = 60) -> None:
        self.root.mkdir()
        self.workspace.mkdir()
        shutil.copytree(spec_source(), self.base / "jdata" / "kernels" / "shard")
        # what `pip install shard` puts in share/jupyter: the prebuilt Lab extension
        shutil.copytree(LAB_EXTENSION, self.base / "jdata" / "labextensions" / LAB_EXTENSION.name)
        labconfig = self.base / "jconfig" / "labconfig"
        labconfig.mkdir()
        disabled = {"@jupyterlab/apputils-extension:announcements": True}
        (labconfig / "page_config.json").write_text(json.dumps({"disabledExtensions": disabled}))
        # what `pip install shard` puts in etc/jupyter: Lab loads the gateway extension
        enabled = self.base / "jconfig" / "jupyter_server_config.d"
        enabled.mkdir()
        shutil.copy(REPO / "jupyter-config" / "jupyter_server_config.d" / EXTENSION_FILE, enabled)
        argv = [
            self.python,
            "-m",
            "jupyter",
            "lab",
            "--no-browser",
            "--ip",
            "127.0.0.1",
            "--port",
            str(self.port),
            f"--ServerApp.token={self.token}",
            f"--ServerApp.root_dir={self.root}",
            "--allow-root",
            "--LabApp.expose_app_in_browser=True",
            *self.extra_args,
        ]
        with self.log_path.open("wb") as log:
            # cwd: what the server writes beside itself (jupyter-collaboration's
            # .jupyter_ystore.db) lands in the temp dir, not the checkout
            self.process = subprocess.Popen(
                argv,
                env=self.env,
                cwd=self.base,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while not self._answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"jupyter lab did not start; its log:\n{self.log()}")
            time.sleep(0.2)

    def _answers(self) -> bool:
        try:
            self.api("GET", "/api/status")
        except OSError:
            return False
        return True

    def api(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            self.url + path,
            data=data,
            method=method,
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                text = response.read()
        except urllib.error.HTTPError as exc:
            exc.close()  # it holds the response's socket until closed
            raise
        return json.loads(text) if text else None

    def notebook(self, name: str, kernel: str, cells: list[str]) -> str:
        """Writes `name` with these code cells for `kernel`; returns the URL that opens it."""
        spec = {
            "shard": {"name": "shard", "display_name": "Shard", "language": "shard"},
            "python3": {"name": "python3", "display_name": "Python 3", "language": "python"},
        }[kernel]
        notebook = {
            "nbformat": 4,
            "nbformat_minor": 5,
            "metadata": {"kernelspec": spec},
            "cells": [
                {
                    "cell_type": "code",
                    "id": f"cell-{i}",
                    "source": source,
                    "metadata": {},
                    "outputs": [],
                    "execution_count": None,
                }
                for i, source in enumerate(cells)
            ],
        }
        (self.root / name).write_text(json.dumps(notebook))
        return f"{self.url}/lab/tree/{name}?reset&token={self.token}"

    def kernel_connection_file(self, notebook: str, timeout: float = 30) -> Path:
        """The connection file of the kernel Lab started for `notebook` (to attach a client)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for session in self.api("GET", "/api/sessions"):
                if session["path"] == notebook and session.get("kernel"):
                    path = self.base / "jruntime" / f"kernel-{session['kernel']['id']}.json"
                    if path.exists():
                        return path
            time.sleep(0.2)
        raise TimeoutError(f"no kernel for {notebook}")

    def wait_kernel_connected(self, notebook: str, timeout: float = 90) -> None:
        """Until the kernel of `notebook` is idle with a client connected: a cell run before
        the page's websocket is open runs nothing (Notebook 7 leaves it "[ ]:")."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for session in self.api("GET", "/api/sessions"):
                kernel = session.get("kernel") or {}
                ready = kernel.get("connections", 0) > 0 and kernel["execution_state"] == "idle"
                if session["path"] == notebook and ready:
                    return
            time.sleep(0.2)
        raise TimeoutError(f"the kernel of {notebook} never became idle with a client connected")

    def shutdown_kernels(self) -> None:
        for session in self.api("GET", "/api/sessions"):
            self.api("DELETE", f"/api/sessions/{session['id']}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]

    def _children(self) -> set[int]:
        if self.process is None:
            return set()
        found: set[int] = set()
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == self.process.pid:  # ppid
                found.add(int(stat.parent.name))
        return found

    def stop(self, grace: float = 0) -> list[int]:
        """Stops Lab and its kernels; returns the pids that had to be killed (should be none).
        `grace`: seconds its other children get to end by themselves once it is gone (an ACP
        agent a server extension started ends on its stdin's end)."""
        if self.process is None:
            return []
        self.kernel_pids |= self._children()
        if self.process.poll() is None:
            with contextlib.suppress(OSError):
                self.api("POST", "/api/shutdown")
            try:  # Lab shuts its kernels down first: under load that took more than 15 s
                self.process.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=5)
        deadline = time.monotonic() + grace
        while any(_alive(p) for p in self.kernel_pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        killed = [pid for pid in sorted(self.kernel_pids) if _alive(pid)]
        for pid in killed:
            os.kill(pid, signal.SIGKILL)
        self.process = None
        return killed


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@contextlib.contextmanager
def served(base: Path, env: dict[str, str]) -> Iterator[LabServer]:
    """A LabServer of its own for a test module (with `env`, e.g. a fake provider's URL),
    stopped after it; a process it leaves running fails the module."""
    server = LabServer(base, env)
    server.start()
    yield server
    leftovers = server.stop()
    assert leftovers == [], f"processes left running after Lab stopped: {leftovers}"
