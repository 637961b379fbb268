"""ServerKernels: the workspace kernel as one more kernel of the Jupyter server that runs us.

When the agent lives in a kernel a Jupyter server started (a gateway agent, or a `%shard` agent
in a notebook's kernel), its workspace kernel is started through that server's REST API — so it
is listed in JupyterLab's running kernels and a person can open a console on it and see the
agent's variables. The agent then talks to it over ZMQ through its connection file in the
server's runtime directory (same machine). The server is recognised as our parent process among
the running servers Jupyter's runtime files list; without one (`shard run`, a plain terminal) or
when the connection file never appears (remote kernels), the caller starts a kernel itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

CONNECTION_WAIT = 30.0
HTTP_TIMEOUT = 60.0


class ServerKernelError(Exception):
    pass


@dataclass(frozen=True)
class JupyterServer:
    url: str
    token: str
    root_dir: Path
    runtime_dir: Path

    @classmethod
    def parent(cls) -> JupyterServer | None:
        """The running Jupyter server that started this process, if any."""
        try:
            from jupyter_core.paths import jupyter_runtime_dir
        except ImportError:
            return None
        runtime = jupyter_runtime_dir()
        servers = _server_files(Path(runtime))
        parent = os.getppid()
        for info in servers:
            if info.get("pid") == parent and info.get("url"):
                root = Path(str(info.get("root_dir") or info.get("notebook_dir") or "/"))
                return cls(str(info["url"]), str(info.get("token") or ""), root, Path(runtime))
        return None

    async def request(self, method: str, path: str, body: Any = None) -> Any:
        return await asyncio.to_thread(self._request, method, path, body)

    def _request(self, method: str, path: str, body: Any) -> Any:
        import urllib.error
        import urllib.request  # http.client and email: with the first request, not at boot

        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url.rstrip("/") + path, data, method=method)
        request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", f"token {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT) as response:
                text = response.read()
        except (urllib.error.URLError, OSError) as exc:
            if isinstance(exc, urllib.error.HTTPError):
                exc.close()  # it holds the response's socket open until closed
            raise ServerKernelError(
                f"{method} {path} on the Jupyter server failed: {exc}"
            ) from None
        return json.loads(text) if text else None


class ServerKernel:
    """One kernel the server started for us: its id and connection file."""

    def __init__(self, server: JupyterServer, kernel_id: str, connection_file: Path) -> None:
        self.server = server
        self.kernel_id = kernel_id
        self.connection_file = connection_file

    @classmethod
    async def start(cls, server: JupyterServer, kernel_name: str, cwd: Path) -> ServerKernel:
        body: dict[str, Any] = {"name": kernel_name}
        if cwd.is_relative_to(server.root_dir):
            body["path"] = cwd.relative_to(server.root_dir).as_posix() or ""
        model = await server.request("POST", "/api/kernels", body)
        kernel_id = str(model["id"])
        kernel = cls(server, kernel_id, server.runtime_dir / f"kernel-{kernel_id}.json")
        if not await kernel._connection_file_appears():
            await kernel.shutdown()
            raise ServerKernelError("the server's kernel has no local connection file")
        return kernel

    async def _connection_file_appears(self) -> bool:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + CONNECTION_WAIT
        while loop.time() < deadline:
            if self.connection_file.is_file():
                return True
            await asyncio.sleep(0.1)
        return False

    async def interrupt(self) -> None:
        await self.server.request("POST", f"/api/kernels/{self.kernel_id}/interrupt")

    async def restart(self) -> None:
        await self.server.request("POST", f"/api/kernels/{self.kernel_id}/restart")

    async def shutdown(self) -> None:
        # A server that went first took its kernels with it.
        with contextlib.suppress(ServerKernelError):
            await self.server.request("DELETE", f"/api/kernels/{self.kernel_id}")


def _server_files(runtime: Path) -> list[dict[str, Any]]:
    """The `jpserver-*.json` info files Jupyter servers write in the runtime folder (what
    jupyter_server's `list_running_servers` reads, without importing the server: that import
    was most of an agent's start, and the caller only looks for its parent, which runs)."""
    found: list[dict[str, Any]] = []
    with contextlib.suppress(OSError):
        for path in sorted(runtime.glob("jpserver-*.json")):
            with contextlib.suppress(OSError, ValueError):
                info = json.loads(path.read_text(encoding="utf-8"))
                if isinstance(info, dict):
                    found.append(cast(dict[str, Any], info))
    return found
