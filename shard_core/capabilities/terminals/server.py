"""Terminals that are jupyter_server terminals: the one a person opens in Lab is the agent's.

An agent kernel the server started knows the server by SHARD_GATEWAY_URL and
SHARD_GATEWAY_TOKEN (`shard_kernel/gateway_reach.py`). It asks the gateway's
`POST /shard/api/terminals` for a terminal running its sandboxed argv with its secret-free
environment (`shard_kernel/gateway/terminals.py`: the server starts it through a tether that
ends it when this process ends), then reads and types through `/terminals/websocket/NAME`,
terminado's protocol, as Lab does: `["stdout", text]` in, `["stdin", text]` out. Closing is
`DELETE /api/terminals/NAME`. While a person has it open, the person's window sets its size
and the server says so (`["shard_size", rows, cols]`): the screen here takes that size. Only a
server on this machine is asked (the sandbox and the workspace are this machine's), and a
server without terminals makes the capability keep ptys of its own. tornado speaks HTTP and
WebSocket here; nothing of Jupyter is imported.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from shard_core.capabilities.terminals.screen import COLUMNS, ROWS
from shard_core.capabilities.terminals.terminal import Terminal

AGENT_QUERY, SIZE_MESSAGE = "shard_agent", "shard_size"
"""the agent's socket says it is the agent's; the server tells it the pty's size while people's
windows set it (shard_kernel/gateway/terminal_sharing.py)"""
URL_VARIABLE = "SHARD_GATEWAY_URL"
TOKEN_VARIABLE = "SHARD_GATEWAY_TOKEN"
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
REQUEST_SECONDS = 30.0


class TerminalServerError(Exception):
    """The server could not make or reach the terminal (its message says why; `code`: the
    HTTP status, 0 when there was no answer)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


class ServerTerminal(Terminal):
    def __init__(
        self,
        server: TerminalServer,
        model: Mapping[str, Any],
        status_file: Path,
        terminal_id: str,
        name: str,
        command: str,
        *,
        cwd: Path,
        sandbox: str,
        on_exit: Callable[[], object] | None = None,
    ) -> None:
        super().__init__(terminal_id, name, command, cwd=cwd, sandbox=sandbox, on_exit=on_exit)
        self.server = server
        self._name = str(model["name"])
        self.server_name = self._name
        self._pid = int(model["pid"])
        self._status_file = status_file
        self._socket: Any = None
        self._reader: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int:
        return self._pid

    async def attach(self) -> None:
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect

        base = self.server.url.replace("http", "ws", 1).rstrip("/")
        url = f"{base}/terminals/websocket/{quote(self._name)}?{AGENT_QUERY}=1"
        request = HTTPRequest(url, headers=self.server.headers(), request_timeout=REQUEST_SECONDS)
        self._socket = await websocket_connect(request, max_message_size=64 * 1024 * 1024)
        await self._socket.write_message(json.dumps(["set_size", ROWS, COLUMNS, 0, 0]))
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            while True:
                message = await self._socket.read_message()
                if message is None:
                    break
                kind, *rest = json.loads(message)
                if kind == "stdout" and rest and isinstance(rest[0], str):
                    self._output(rest[0].encode("utf-8", errors="replace"))
                elif kind == SIZE_MESSAGE and len(rest) == 2:
                    self.screen.resize(*rest)  # a person's window: what the program draws for
                elif kind == "disconnect":
                    break
        finally:
            self._finish(self._status())

    def _status(self) -> int | None:
        try:
            return int(self._status_file.read_text())
        except (OSError, ValueError):
            return None

    async def send(self, data: bytes) -> None:
        from tornado.websocket import WebSocketClosedError

        if not self.alive:
            raise OSError("the terminal's process has ended")
        text = data.decode("utf-8", errors="replace")
        try:
            await self._socket.write_message(json.dumps(["stdin", text]))
        except WebSocketClosedError:
            raise OSError("the terminal's connection to the server has closed") from None

    async def close(self, grace: float = 1.0) -> None:
        """`DELETE /api/terminals/NAME` (SIGHUP … SIGKILL to the tether, which ends the rest);
        then the end, as the socket says it."""
        if self.alive:
            with contextlib.suppress(TerminalServerError):
                await self.server.call("DELETE", f"api/terminals/{quote(self._name)}")
            with contextlib.suppress(TimeoutError):  # the socket says the end (if attached)
                async with asyncio.timeout(grace + 5 if self._reader is not None else 0):
                    while self.alive:
                        await self.changed(0.1)
        if self._socket is not None:
            self._socket.close()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        self._status_file.unlink(missing_ok=True)
        self._finish(self._status())


class TerminalServer:
    """The local Jupyter server an agent's terminals live in, from the agent's environment."""

    def __init__(self, url: str, token: str) -> None:
        self.url = url.rstrip("/") + "/"
        self.token = token
        self.disabled = ""
        """why the server makes no terminals, once it said so (then the kernel's ptys)"""

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> TerminalServer | None:
        url = env.get(URL_VARIABLE, "").strip()
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or parts.hostname not in LOOPBACK:
            return None
        return cls(url, env.get(TOKEN_VARIABLE, "").strip())

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"token {self.token}"} if self.token else {}

    async def open(
        self,
        name: str,
        argv: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        status_file: Path,
        shown: Mapping[str, str] | None = None,
    ) -> dict[str, Any] | None:
        """The new terminal's model (`name`, `pid`), or None when the server has none.
        `shown` (`agent_id`, `label`, `command`) lists it with its agent in the sidebar."""
        body = {"name": name, "cwd": str(cwd), "argv": list(argv), "env": dict(env),
                "owner": {"pid": os.getpid(), "start": process_start()},
                "status_file": str(status_file), **(shown or {})}  # fmt: skip
        try:
            return await self.call("POST", "shard/api/terminals", body)
        except TerminalServerError as exc:
            if exc.code == 409 and "no terminals" in str(exc):  # none, or none for this agent
                self.disabled = str(exc)
                return None
            raise

    async def call(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest

        data = None if body is None else json.dumps(body).encode("utf-8")
        request = HTTPRequest(self.url + path, method=method, body=data, headers={
            **self.headers(), "Content-Type": "application/json"},
            request_timeout=REQUEST_SECONDS, allow_nonstandard_methods=True)  # fmt: skip
        try:
            response = await AsyncHTTPClient().fetch(request)
        except HTTPClientError as exc:
            raise TerminalServerError(exc.code, _message(exc)) from None
        except OSError as exc:
            raise TerminalServerError(0, f"the Jupyter server is out of reach ({exc})") from None
        return json.loads(response.body or b"{}")


def _message(exc: Any) -> str:
    try:
        return str(json.loads(exc.response.body)["message"])
    except Exception:
        return f"the Jupyter server answered {exc.code}"


def process_start(pid: int | str = "self") -> int:
    """When the process started (clock ticks since boot): with the pid, who it is."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[19])
