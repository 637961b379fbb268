"""The web's two registries: search providers and the page fetcher.

A search provider (Brave, Tavily, SearXNG, the offline folder, or an extension's) answers a
query with hits; the fetcher turns a URL into text. Both are registered through the
ExtensionApi (`register_search_provider`, `register_web_fetcher`), bundled or third-party
alike, and looked up by the web tools when a call runs. A failure the person should read is a
`WebError` with its message; the tools turn it into an error result.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable


class WebError(Exception):
    """A fetch or a search that cannot be done, said so the model and the person can act."""


@dataclass(frozen=True)
class SearchHit:
    title: str
    url: str
    snippet: str = ""


@dataclass(frozen=True)
class SearchRequest:
    query: str
    domains: Sequence[str] = ()
    """only results from these domains (and their subdomains), when given"""
    limit: int = 8


@runtime_checkable
class SearchProvider(Protocol):
    """Answers `web_search`. `name` is what `web.search.provider` in config.json selects."""

    name: str

    async def search(self, request: SearchRequest) -> list[SearchHit]:
        """The hits, best first; a `WebError` says why there are none (no key, the service
        refused, …)."""
        ...


@dataclass(frozen=True)
class FetchLimits:
    max_bytes: int = 10_000_000
    timeout: float = 30.0
    """seconds for the whole fetch, redirects and body included"""
    max_redirects: int = 5


@dataclass(frozen=True)
class FetchedPage:
    url: str
    """the URL asked for"""
    final_url: str
    """where the redirects ended"""
    status: int
    content_type: str
    body: bytes
    redirects: list[str] = field(default_factory=list[str])


@runtime_checkable
class WebFetcher(Protocol):
    """Fetches one http(s) URL within the limits and the address policy it was built with."""

    async def fetch(self, url: str, limits: FetchLimits) -> FetchedPage: ...
