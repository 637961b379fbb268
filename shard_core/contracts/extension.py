"""ExtensionApi: the only surface through which anything registers into the core."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from shard_core.contracts.codeintel import CodeIntelligenceProvider
from shard_core.contracts.compactor import Compactor, Extractor
from shard_core.contracts.mode import Mode
from shard_core.contracts.provider import Provider, ProviderSpec
from shard_core.contracts.tool import Tool
from shard_core.contracts.ui import UiBridge
from shard_core.contracts.web import SearchProvider, WebFetcher
from shard_core.types import JsonObject

ProviderFactory = Callable[[str], Provider]
"""Builds a provider for the model part of a model string (`fn/<model>`): the short form of
`register_provider`, a ProviderSpec with only a prefix and a build."""

SkillLoader = Callable[[], list[dict[str, Any]]]
McpTransportFactory = Callable[[dict[str, Any]], Any]
CommandHandler = Callable[[list[str]], Awaitable[str] | str]
"""A slash command: given the words after its name, returns markdown for the cell output."""
Disposer = Callable[[], Awaitable[None] | None]
StatusRow = Callable[[], str | None]
"""One `/status` row of an extension: its text now (markdown, one line), or None to show none."""


class ExtensionApi(Protocol):
    def on(self, event: str, handler: Callable[..., Any]) -> None:
        """Subscribe to an event type (`turn_end`, …) or `*` for all."""
        ...

    def register_tool(self, tool: Tool) -> None: ...

    def register_mode(self, mode: Mode) -> None: ...

    def register_compactor(self, compactor: Compactor) -> None: ...

    def register_extractor(self, extractor: Extractor) -> None: ...

    def register_provider(
        self, spec: ProviderSpec | str, factory: ProviderFactory | None = None
    ) -> None:
        """A provider: a ProviderSpec (everything it is), or a prefix and a factory."""
        ...

    def register_code_intelligence(self, provider: CodeIntelligenceProvider) -> None: ...

    def register_skill_loader(self, loader: SkillLoader) -> None: ...

    def register_mcp_transport(self, name: str, factory: McpTransportFactory) -> None: ...

    def register_command(
        self, name: str, description: str, handler: CommandHandler, *, hint: str = ""
    ) -> None:
        """A slash command (`/name ARGS`) in every surface that takes them (kernel cells,
        `/help`, completion, ACP). `name` is lowercase letters, digits, `-`, `_` and `:`;
        `hint` says what goes after the name (`QUERY`, `[ENTRY_ID]`), shown apart from the
        description where a surface has a place for it (ACP's command input hint)."""
        ...

    def register_status(self, label: str, row: StatusRow) -> None:
        """A row of `/status` this extension owns (a goal, a todo list, open terminals):
        `label`, then what `row()` says each time status is asked; None hides the row."""
        ...

    def register_search_provider(self, provider: SearchProvider) -> None:
        """A search provider for `web_search`, chosen by `web.search.provider` in config.json
        (its `name`); a later registration of a name replaces it."""
        ...

    def register_web_fetcher(self, fetcher: WebFetcher) -> None:
        """The fetcher `web_fetch` uses (the bundled one guards addresses: a replacement must
        keep the domain policy and refuse private addresses itself)."""
        ...

    @property
    def ui(self) -> UiBridge: ...

    def settings(self, section: str) -> JsonObject:
        """This agent's config.json section `section` as JSON, with the agent's own overrides
        applied (`{}` when there is none). Providers are never given, and of `credentials`
        only where a file-kept credential lives (`{name: {"file": path}}`, for a sandbox to
        hide), never a value or a variable's name."""
        ...


Extension = Callable[[ExtensionApi], Disposer | Awaitable[Disposer | None] | None]
"""An extension: a function given the api; it may return a disposer run on shutdown."""
