"""How to reach a server: stdio, streamable HTTP, SSE, or a transport an extension registered.

Every transport is what the SDK's own are: an async context manager yielding the
(read, write) stream pair a `ClientSession` runs on. An extension's factory
(`api.register_mcp_transport(name, factory)`) gets the server's expanded config as a dict
(`name`, `type`, `command`, `args`, `env`, `cwd`, `url`, `headers` and any other keys) and
returns one; a config selects it with `"type": name`. Registered names are consulted first.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

from shard_core.capabilities.mcp.config import Expanded, ServerConfig
from shard_core.capabilities.mcp.stderr import StderrTail
from shard_core.contracts import McpTransportFactory
from shard_core.types.errors import ConfigError

Streams = tuple[Any, Any]
Opener = Callable[[StderrTail], AbstractAsyncContextManager[Streams]]
Registered = Callable[[str], McpTransportFactory | None]


def opener(config: ServerConfig, values: Expanded, registered: Registered, cwd: Path) -> Opener:
    """The transport for `config`, with its expanded `values`; ConfigError for an unknown type."""
    factory = registered(config.type)
    if factory is not None:
        return _extension(factory, config, values)
    if config.type == "stdio":
        return lambda tail: _stdio(values, cwd, tail)
    if config.type == "http":
        return lambda _tail: _http(values.url, values.headers)
    if config.type == "sse":
        return lambda _tail: _sse(values.url, values.headers)
    raise ConfigError(
        f"server {config.name!r}: unknown transport type {config.type!r} "
        "(stdio, http, sse, or one an extension registers)"
    )


@asynccontextmanager
async def _stdio(values: Expanded, cwd: Path, tail: StderrTail) -> AsyncGenerator[Streams]:
    from mcp.client.stdio import StdioServerParameters, stdio_client

    folder = cwd / values.cwd if values.cwd else cwd
    params = StdioServerParameters(
        command=values.command, args=list(values.args), env=values.env or None, cwd=folder
    )
    errlog = tail.open()
    try:
        async with stdio_client(params, errlog=errlog) as streams:  # pyright: ignore[reportArgumentType]
            errlog.close()  # the server holds its own copy; EOF reaches the reader when it exits
            yield streams
    finally:
        if not errlog.closed:
            errlog.close()


@asynccontextmanager
async def _http(url: str, headers: Mapping[str, str]) -> AsyncGenerator[Streams]:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    timeout = httpx2.Timeout(30.0, read=300.0)
    async with (
        httpx2.AsyncClient(headers=dict(headers), timeout=timeout) as client,
        streamable_http_client(url, http_client=client) as streams,
    ):
        yield streams


@asynccontextmanager
async def _sse(url: str, headers: Mapping[str, str]) -> AsyncGenerator[Streams]:
    from mcp.client.sse import sse_client

    async with sse_client(url, headers=dict(headers)) as streams:  # pyright: ignore[reportUnknownVariableType]
        yield streams  # pyright: ignore[reportUnknownArgumentType]


def _extension(factory: McpTransportFactory, config: ServerConfig, values: Expanded) -> Opener:
    spec: dict[str, Any] = {
        **values.extra,
        "name": config.name,
        "type": config.type,
        "command": values.command,
        "args": list(values.args),
        "env": dict(values.env),
        "cwd": values.cwd,
        "url": values.url,
        "headers": dict(values.headers),
    }

    def open_it(_tail: StderrTail) -> AbstractAsyncContextManager[Streams]:
        made = factory(spec)
        if not isinstance(made, AbstractAsyncContextManager):
            raise ConfigError(
                f"the {config.type!r} transport returned {type(made).__name__}, not an async "
                "context manager yielding (read, write) streams"
            )
        return made  # pyright: ignore[reportUnknownVariableType]

    return open_it
