"""The web capability: `web_fetch`, `web_search`, the bundled fetcher and search providers.

    await host.install("shard.web", WebCapability(config.web, key=..., lookup=host))

Installed through the ExtensionApi like any extension: it registers the bundled search
providers (brave, tavily, searxng, offline) and the guarded HTTP fetcher with
`register_search_provider` / `register_web_fetcher`, so an extension installed later can add
a provider or replace the fetcher, and the tools look them up by name when a call runs.
`web_search` exists when `web.search.provider` names a provider.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from shard_core.capabilities.web.fetch import HttpFetcher
from shard_core.capabilities.web.guard import DomainPolicy
from shard_core.capabilities.web.search import (
    BraveSearch,
    OfflineSearch,
    SearxngSearch,
    TavilySearch,
)
from shard_core.capabilities.web.tools import WebFetchTool, WebSearchTool
from shard_core.contracts import ExtensionApi
from shard_core.contracts.web import FetchLimits, SearchProvider, WebError, WebFetcher
from shard_core.engine.access import declare_tools
from shard_core.engine.config import WebConfig

KeyResolver = Callable[[str | None, str], str]
"""`key(credential, variable)`: the named credential's value, else the variable's; raises a
ConfigError (or WebError) saying which is missing."""

_KEY_VARIABLES = {"brave": "BRAVE_API_KEY", "tavily": "TAVILY_API_KEY"}


WEB_TOOL_TYPES = (WebFetchTool, WebSearchTool)


def declare_web_tools() -> None:
    """Make the web tools' permission shapes known where no agent installs them: rules such as
    `WebFetch(domain:docs.python.org)` then parse (what checks rules before an agent exists
    declares them with every other tool: shard_kernel/registrations.py)."""
    declare_tools(WEB_TOOL_TYPES)


class WebRegistry(Protocol):
    """What the tools look up when they run (the ExtensionHost's snapshot)."""

    def search_provider(self, name: str) -> SearchProvider | None: ...

    def search_provider_names(self) -> list[str]: ...

    def web_fetcher(self) -> WebFetcher | None: ...


class WebCapability:
    def __init__(self, config: WebConfig, *, key: KeyResolver, lookup: WebRegistry) -> None:
        self.config = config
        self._key = key
        self._lookup = lookup
        self.policy = DomainPolicy.of(config.allowed_domains, config.denied_domains)

    def __call__(self, api: ExtensionApi) -> None:
        search = self.config.search
        api.register_web_fetcher(HttpFetcher(self.policy))
        api.register_search_provider(BraveSearch(self._service_key("brave"), search.url))
        api.register_search_provider(TavilySearch(self._service_key("tavily"), search.url))
        api.register_search_provider(SearxngSearch(search.url))
        api.register_search_provider(OfflineSearch(search.folder))
        fetch = self.config.fetch
        limits = FetchLimits(fetch.max_bytes, fetch.timeout, fetch.max_redirects)
        api.register_tool(WebFetchTool(self._fetcher, self.policy, limits, fetch.max_chars))
        if search.provider:
            api.register_tool(WebSearchTool(self._provider, self.policy, search.max_results))

    def _service_key(self, service: str) -> Callable[[], str]:
        def key() -> str:
            from shard_core.types.errors import ConfigError

            try:
                return self._key(self.config.search.credential, _KEY_VARIABLES[service])
            except ConfigError as exc:
                raise WebError(f"{service}: no API key: {exc}") from None

        return key

    def _fetcher(self) -> WebFetcher:
        return self._lookup.web_fetcher() or HttpFetcher(self.policy)

    def _provider(self) -> SearchProvider:
        name = self.config.search.provider or ""
        provider = self._lookup.search_provider(name)
        if provider is None:
            known = ", ".join(self._lookup.search_provider_names()) or "none"
            raise WebError(f"no search provider named {name!r} (registered: {known})")
        return provider
