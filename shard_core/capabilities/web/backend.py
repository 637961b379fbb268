"""GuardedBackend: httpcore's network backend connecting only to addresses the guard checked
(guard.py). Imported with the first fetch: httpcore, anyio and h11 are not an agent's boot."""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

import httpcore2
from httpcore2 import AsyncNetworkBackend, AsyncNetworkStream

from shard_core.capabilities.web.guard import DomainPolicy, resolve
from shard_core.contracts.web import WebError


class GuardedBackend(AsyncNetworkBackend):
    """httpcore's network backend with the address check in `connect_tcp`: every connection,
    redirects included, goes to an address the policy let through."""

    def __init__(self, policy: DomainPolicy) -> None:
        self._policy = policy
        # AnyIOBackend is defined only when anyio is installed (it is: httpcore needs it)
        self._inner = cast(AsyncNetworkBackend, httpcore2.AnyIOBackend())

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore's signature
        local_address: str | None = None,
        socket_options: Iterable[httpcore2.SOCKET_OPTION] | None = None,
    ) -> AsyncNetworkStream:
        addresses = await resolve(self._policy, host, port)
        failure: Exception | None = None
        for address in addresses:
            try:
                return await self._inner.connect_tcp(
                    address, port, timeout, local_address, socket_options
                )
            except httpcore2.ConnectError as exc:
                failure = exc
        raise WebError(f"{host}:{port}: cannot connect ({failure})")

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore's signature
        socket_options: Iterable[httpcore2.SOCKET_OPTION] | None = None,
    ) -> AsyncNetworkStream:
        raise WebError("the web tools never connect to a Unix socket")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)
