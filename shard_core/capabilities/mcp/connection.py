"""McpServer: one configured server's connection — lazy start, timeouts, crash and restart.

The connection lives in a task of its own (the SDK's transports are anyio contexts that must be
entered and left by one task); calls from the turn loop go through its `ClientSession`. A start
that does not finish `initialize` and the tool listing within `startup_timeout` is abandoned
(the process is stopped). A call that finds the connection closed marks the server crashed:
the call gets a clear error, the next use restarts it after a backoff (1, 2, 4 … 30 s), and
after MAX_FAILURES failures in a row it stays down until `/mcp restart`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any, Literal, cast

from shard_core.capabilities.mcp.config import ServerConfig
from shard_core.capabilities.mcp.stderr import StderrTail
from shard_core.capabilities.mcp.transports import Opener
from shard_core.types import JsonObject

log = logging.getLogger("shard.mcp")

MAX_FAILURES = 5
MAX_BACKOFF = 30.0
STOP_TIMEOUT = 10.0
MAX_PAGES = 50

State = Literal["stopped", "starting", "ready", "crashed", "failed"]


class McpUnavailableError(Exception):
    """The server cannot be used now; the message says why, for the model and for people."""


@dataclass(frozen=True)
class ListedTool:
    """A tool as the server describes it (SDK types stay in this module)."""

    name: str
    description: str
    input_schema: JsonObject
    title: str | None = None
    read_only_hint: bool | None = None


class McpServer:
    def __init__(
        self,
        config: ServerConfig,
        part: str,
        open_transport: Callable[[], Opener],
        *,
        on_tools: Callable[[McpServer], None] = lambda _server: None,
        notify: Callable[[str], None] = lambda _message: None,
    ) -> None:
        self.config = config
        self.part = part
        """the server's part of its tools' names (`mcp__<part>__…`)"""
        self.state: State = "stopped"
        self.error: str | None = None
        self.tools: list[ListedTool] = []
        self.prompts: list[str] = []
        self.resources = False
        """whether the server offers resources (the generic resource tool reads them)"""
        self.server_info: str | None = None
        self.stderr = StderrTail(config.name)
        self.failures = 0
        self.starts = 0
        self._open_transport = open_transport
        self._on_tools = on_tools
        self._notify = notify
        self._session: Any = None
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._lock = asyncio.Lock()
        self._retry_at = 0.0
        self._relists: set[asyncio.Task[None]] = set()

    @property
    def name(self) -> str:
        return self.config.name

    # -- use ----------------------------------------------------------------------------------

    async def ensure(self) -> Any:
        """The live session, starting (or restarting, after the backoff) the server if needed."""
        await self._settle()
        async with self._lock:
            if self.state == "ready" and self._session is not None:
                return self._session
            if self.state == "failed":
                raise McpUnavailableError(
                    f"MCP server {self.name!r} is stopped after {self.failures} failures in a "
                    f"row ({self.error}); a person can restart it with /mcp restart {self.name}"
                )
            wait = self._retry_at - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            await self._start()
            return self._session

    async def call(self, tool: str, arguments: JsonObject) -> Any:
        """`tools/call`; McpUnavailableError when the server is down or went down meanwhile."""
        session = await self.ensure()
        from mcp.shared.exceptions import MCPError
        from mcp_types import CONNECTION_CLOSED

        try:
            result = await asyncio.wait_for(
                session.call_tool(tool, arguments), self.config.call_timeout
            )
            await self._settle()  # a tools/list_changed sent during the call is acted on first
            return result
        except TimeoutError:
            raise McpUnavailableError(
                f"MCP server {self.name!r} did not answer {tool!r} within "
                f"{self.config.call_timeout:g} s"
            ) from None
        except MCPError as exc:
            if exc.code != CONNECTION_CLOSED:
                raise
            raise McpUnavailableError(await self._crashed(f"while {tool!r} ran")) from None
        except Exception as exc:
            if not isinstance(exc, (OSError, EOFError, *_anyio_closed())):
                raise
            raise McpUnavailableError(await self._crashed(f"({type(exc).__name__})")) from None

    async def read_resource(self, uri: str) -> Any:
        session = await self.ensure()
        return await asyncio.wait_for(session.read_resource(uri), self.config.call_timeout)

    async def list_resources(self) -> Any:
        session = await self.ensure()
        return await asyncio.wait_for(session.list_resources(), self.config.call_timeout)

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> Any:
        session = await self.ensure()
        return await asyncio.wait_for(session.get_prompt(name, arguments), self.config.call_timeout)

    async def restart(self) -> None:
        """A person's restart: forget the failures and start now."""
        await self.close()
        self.failures, self._retry_at, self.state = 0, 0.0, "stopped"
        await self.ensure()

    async def close(self) -> None:
        """Stop the server (bounded); safe to call twice."""
        task, self._task, self._session = self._task, None, None
        if self.state == "ready":
            self.state = "stopped"
        if task is None:
            return
        self._stop.set()
        try:
            await asyncio.wait_for(asyncio.shield(task), STOP_TIMEOUT)
        except (TimeoutError, Exception):
            task.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(task, STOP_TIMEOUT)

    # -- lifecycle ----------------------------------------------------------------------------

    async def _start(self) -> None:
        self.state, self.error = "starting", None
        self.starts += 1
        self._stop = asyncio.Event()
        ready: asyncio.Future[tuple[Any, list[ListedTool]]] = (
            asyncio.get_running_loop().create_future()
        )
        self._task = asyncio.create_task(self._hold(ready), name=f"mcp-{self.name}")
        timeout = self.config.startup_timeout
        try:
            session, tools = await asyncio.wait_for(asyncio.shield(ready), timeout)
        except asyncio.CancelledError:  # the turn was stopped while the server started
            self._task.cancel()  # its transport stops the process, shielded, as it unwinds
            self.state, self._task = "stopped", None
            raise
        except TimeoutError:
            await self._abandon()
            raise McpUnavailableError(
                self._failed(f"did not answer initialize within {timeout:g} s")
            ) from None
        except Exception as exc:
            await self._abandon()
            raise McpUnavailableError(self._failed(f"could not start: {_describe(exc)}")) from None
        self._session, self.tools, self.state = session, tools, "ready"
        self._on_tools(self)

    async def _abandon(self) -> None:
        """Give up a start that is still under way: its transport stops the process."""
        task, self._task, self._session = self._task, None, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(task, STOP_TIMEOUT)

    async def _hold(self, ready: asyncio.Future[tuple[Any, list[ListedTool]]]) -> None:
        """The connection's task: open, initialize, list, then stay until told to stop."""
        from mcp.client.session import ClientSession
        from mcp_types import Implementation

        try:
            async with AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._open_transport()(self.stderr))
                info = Implementation(name="shard", version=_version())
                session = ClientSession(
                    read, write, client_info=info, message_handler=self._on_message
                )
                await stack.enter_async_context(session)
                result = await session.initialize()
                self.server_info = _server_info(result)
                tools = await _list_tools(session)
                self.prompts = await _list_prompts(session, result)
                self.resources = _offers(result, "resources")
                ready.set_result((session, tools))
                await self._stop.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(
                    ConnectionError("stopped") if isinstance(exc, asyncio.CancelledError) else exc
                )
            if isinstance(exc, asyncio.CancelledError):
                raise
            log.info("mcp server %s: connection ended: %s", self.name, _describe(exc))

    async def _settle(self) -> None:
        """Wait for listings the server asked for: they decide what may run next."""
        if self._relists:
            await asyncio.gather(*list(self._relists), return_exceptions=True)

    async def _on_message(self, message: Any) -> None:
        """`notifications/tools/list_changed`: list again (in a task: the dispatcher waits)."""
        if type(message).__name__ != "ToolListChangedNotification":
            return
        task = asyncio.get_running_loop().create_task(self._relist())
        self._relists.add(task)
        task.add_done_callback(self._relists.discard)

    async def _relist(self) -> None:
        session = self._session
        if session is None or self.state != "ready":
            return
        try:
            tools = await asyncio.wait_for(_list_tools(session), self.config.startup_timeout)
        except Exception as exc:  # the old list stays; the next start lists again
            log.info("mcp server %s: listing tools again failed: %s", self.name, _describe(exc))
            return
        self.tools = tools
        self._on_tools(self)

    async def _crashed(self, when: str) -> str:
        """Mark the server crashed, stop what is left of it; the message for the tool result."""
        await self.close()
        self.state = "crashed"
        self.failures += 1
        tail = self.stderr.text(lines=5)
        said = f"; its last stderr lines:\n{tail}" if tail else ""
        if self.failures >= MAX_FAILURES:
            self.state = "failed"
            self.error = f"the connection closed {when}"
            note = f"stopped after {self.failures} failures in a row; /mcp restart {self.name}"
        else:
            delay = min(MAX_BACKOFF, 2.0 ** (self.failures - 1))
            self._retry_at = time.monotonic() + delay
            self.error = f"the connection closed {when}"
            note = f"it restarts on next use, in {delay:g} s at the earliest"
        message = f"MCP server {self.name!r} stopped {when}: the call has no result; {note}{said}"
        self._notify(f"MCP server {self.name!r} stopped {when}; {note}")
        return message

    def _failed(self, why: str) -> str:
        self.failures += 1
        self.state = "failed" if self.failures >= MAX_FAILURES else "crashed"
        self.error = why
        self._retry_at = time.monotonic() + min(MAX_BACKOFF, 2.0 ** (self.failures - 1))
        tail = self.stderr.text(lines=5)
        said = f"; its last stderr lines:\n{tail}" if tail else ""
        message = f"MCP server {self.name!r} {why}{said}"
        self._notify(f"MCP server {self.name!r} {why}")
        return message


async def _list_tools(session: Any) -> list[ListedTool]:
    from mcp_types import PaginatedRequestParams

    tools: list[ListedTool] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        params = PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        for tool in page.tools:
            hint = tool.annotations.read_only_hint if tool.annotations else None
            schema: JsonObject = dict(tool.input_schema or {"type": "object"})
            tools.append(ListedTool(tool.name, tool.description or "", schema, tool.title, hint))
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


def _offers(result: Any, feature: str) -> bool:
    capabilities = getattr(result, "capabilities", None)
    return getattr(capabilities, feature, None) is not None


async def _list_prompts(session: Any, result: Any) -> list[str]:
    if not _offers(result, "prompts"):
        return []
    try:
        listed = await session.list_prompts()
    except Exception:  # optional: a server that offers but fails them just has none
        return []
    return [p.name for p in listed.prompts]


def _server_info(result: Any) -> str | None:
    info = getattr(result, "server_info", None)
    return f"{info.name} {info.version}".strip() if info is not None else None


def _describe(error: BaseException) -> str:
    """The first leaf of an exception group, as `Type: message`."""
    leaf: BaseException = error
    while True:
        inner = cast(tuple[BaseException, ...], getattr(leaf, "exceptions", ()))
        if not inner:
            break
        leaf = inner[0]
    name = type(leaf).__name__
    text = str(leaf) or name
    return text if text.startswith(name) else f"{name}: {text}"


def _anyio_closed() -> tuple[type[BaseException], ...]:
    import anyio

    return (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream)


def _version() -> str:
    from shard_core import __version__

    return __version__
