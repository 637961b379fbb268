"""The bundled fetcher: GET over httpcore with the address guard, redirects re-checked, caps.

Each hop of a redirect chain is checked against the domain policy and connected through the
guard again; a chain longer than `max_redirects`, or one that comes back to a URL it already
visited, ends the fetch with that said. The whole fetch, body included, has one deadline, and
the body is read up to `max_bytes` (a larger Content-Length is refused before reading). Proxy
variables are not followed: a proxy would resolve names where the guard cannot see them.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING
from urllib.parse import quote, urljoin, urlsplit, urlunsplit

from shard_core.capabilities.web.guard import DomainPolicy
from shard_core.contracts.web import FetchedPage, FetchLimits, WebError

if TYPE_CHECKING:
    import httpcore2

USER_AGENT = "Shard-web_fetch/1 (+a coding agent; https://jupyter.org)"
_REDIRECTS = frozenset({301, 302, 303, 307, 308})


def on_the_wire(url: str) -> str:
    """`url` as a request line can carry it: a non-ASCII host in IDNA (xn--…), the path's and
    query's spaces and non-ASCII characters percent-encoded (UTF-8), escapes already there
    kept, the fragment left out (it is never sent). A checked URL in, so its port is valid."""
    parts = urlsplit(url.strip())
    host = parts.hostname or ""
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError as exc:
            raise WebError(f"{url!r}: {host!r} is not a valid host name ({exc})") from None
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port is not None else host
    path = quote(parts.path, safe="/%:@!$&'()*+,;=~") or "/"
    query = quote(parts.query, safe="/?%:@!$&'()*+,;=~")
    return urlunsplit((parts.scheme.lower(), netloc, path, query, ""))


def megabytes(count: int) -> str:
    return f"{count / 1_000_000:g} MB"


class HttpFetcher:
    """The `web_fetch` tool's fetcher unless an extension registers another."""

    name = "http"

    def __init__(self, policy: DomainPolicy) -> None:
        self.policy = policy

    async def fetch(self, url: str, limits: FetchLimits) -> FetchedPage:
        try:
            async with asyncio.timeout(limits.timeout):
                return await self._fetch(url, limits)
        except TimeoutError:
            raise WebError(
                f"{url}: no complete answer within {limits.timeout:g} s (web.fetch.timeout)"
            ) from None

    async def _fetch(self, url: str, limits: FetchLimits) -> FetchedPage:
        import ssl

        import httpcore2  # httpcore, anyio, h11, ssl: with the first fetch, not at boot

        from shard_core.capabilities.web.backend import GuardedBackend

        pool = httpcore2.AsyncConnectionPool(
            ssl_context=ssl.create_default_context(),
            network_backend=GuardedBackend(self.policy),
            retries=0,
        )
        async with pool:
            current, seen, redirects = url, {url}, list[str]()
            while True:
                self.policy.check(current)
                status, headers, body = await self._get(pool, on_the_wire(current), limits)
                if status not in _REDIRECTS:
                    kind = headers.get("content-type", "")
                    return FetchedPage(url, current, status, kind, body, redirects)
                location = headers.get("location")
                if not location:
                    raise WebError(f"{current}: redirect {status} without a Location")
                try:
                    following = urljoin(current, location)
                except ValueError as exc:
                    raise WebError(
                        f"{current}: redirect {status} to {location!r}, which is not a URL ({exc})"
                    ) from None
                if following in seen:
                    chain = " → ".join([*[url, *redirects], following])
                    raise WebError(f"redirect loop: {chain}")
                if len(redirects) >= limits.max_redirects:
                    raise WebError(
                        f"{url}: more than {limits.max_redirects} redirects (last: {following})"
                    )
                seen.add(following)
                redirects.append(following)
                current = following

    async def _get(
        self, pool: httpcore2.AsyncConnectionPool, url: str, limits: FetchLimits
    ) -> tuple[int, dict[str, str], bytes]:
        import httpcore2

        request_headers = [
            (b"User-Agent", USER_AGENT.encode()),
            (b"Accept", b"text/html,application/xhtml+xml,text/*;q=0.9,application/pdf,*/*;q=0.5"),
            (b"Accept-Encoding", b"identity"),
        ]
        try:
            async with pool.stream("GET", url, headers=request_headers) as response:
                headers = {
                    k.decode("latin-1").lower(): v.decode("latin-1") for k, v in response.headers
                }
                if response.status in _REDIRECTS:
                    return response.status, headers, b""
                declared = headers.get("content-length", "")
                if declared.isdigit() and int(declared) > limits.max_bytes:
                    raise WebError(
                        f"{url}: the page is {megabytes(int(declared))}, over the "
                        f"{megabytes(limits.max_bytes)} limit (web.fetch.max_bytes)"
                    )
                body = bytearray()
                async for chunk in response.aiter_stream():
                    body += chunk
                    if len(body) > limits.max_bytes:
                        raise WebError(
                            f"{url}: the page is over the {megabytes(limits.max_bytes)} limit "
                            "(web.fetch.max_bytes); stopped reading"
                        )
                return response.status, headers, bytes(body)
        except httpcore2.TimeoutException as exc:
            raise WebError(f"{url}: timed out ({type(exc).__name__})") from None
        except (httpcore2.ConnectError, httpcore2.NetworkError) as exc:
            raise WebError(f"{url}: cannot connect ({exc or type(exc).__name__})") from None
        except httpcore2.ProtocolError as exc:
            raise WebError(f"{url}: the server's answer is not valid HTTP ({exc})") from None
        except httpcore2.UnsupportedProtocol as exc:
            raise WebError(f"{url}: {exc}") from None
