"""ExtensionHost: the one registration surface, with attribution, diagnostics and disposers.

Bundled tools, modes, providers and the compactor are installed through it exactly like a
third-party extension. A throwing extension is reported and the others still load.

Where each registration takes effect: tools, modes and `on` handlers in the session (`attach`
subscribes the handlers to its event stream); extractors and code intelligence in the
compactor (`compactor()` hands them to an ExtensibleCompactor) and code intelligence in every
ToolContext (`code_index`); providers and compactors by name (`provider`, `compactor`); skill
loaders through `skill_loaders()` / `load_skills()` (the skills capability reads them); MCP
transports through `mcp_transport(name)` (the MCP capability asks for them); slash commands
through `command(name)` / `commands()` (the kernel dispatches and lists them); search
providers and the web fetcher through `search_provider(name)` / `web_fetcher()` (the web tools
look them up when a call runs).
"""

from __future__ import annotations

import importlib.util
import inspect
import logging
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Literal, cast

from shard_core.contracts import (
    CodeIntelligenceProvider,
    CommandHandler,
    Compactor,
    Disposer,
    ExtensibleCompactor,
    Extension,
    ExtensionApi,
    Extractor,
    McpTransportFactory,
    Mode,
    ProviderFactory,
    ProviderSpec,
    SearchProvider,
    SkillLoader,
    StatusRow,
    Tool,
    UiBridge,
    WebFetcher,
)
from shard_core.engine.access import declare_tool
from shard_core.engine.compaction.registered import BudgetedExtractor
from shard_core.engine.events import EventStream
from shard_core.engine.extension_events import EventHandlers, Handler
from shard_core.engine.registry import ToolRegistryImpl
from shard_core.engine.ui import UiProxy
from shard_core.types import JsonObject

log = logging.getLogger("shard.extensions")

COMMAND_NAME = re.compile(r"[a-z0-9][a-z0-9_:-]{0,63}")

ENTRY_POINT_GROUP = "shard.extensions"


@dataclass(frozen=True)
class Diagnostic:
    extension: str
    level: Literal["info", "warning", "error"]
    message: str


@dataclass(frozen=True)
class Command:
    """A registered slash command and the extension that owns it."""

    name: str
    description: str
    handler: CommandHandler
    extension: str
    hint: str = ""
    """what goes after the name (`QUERY`); empty when the command takes nothing"""


@dataclass
class Snapshot:
    """Everything registered, read by the session at assembly time."""

    tools: ToolRegistryImpl = field(default_factory=ToolRegistryImpl)
    modes: dict[str, Mode] = field(default_factory=dict[str, Mode])
    compactor: Compactor | None = None
    """the compactor registered last: the session's unless one is asked for by name"""
    compactors: dict[str, Compactor] = field(default_factory=dict[str, Compactor])
    extractors: list[Extractor] = field(default_factory=list[Extractor])
    providers: dict[str, ProviderSpec] = field(default_factory=dict[str, ProviderSpec])
    """by prefix, in registration order (a later registration of a prefix replaces it)"""
    code_intelligence: CodeIntelligenceProvider | None = None
    skill_loaders: list[SkillLoader] = field(default_factory=list[SkillLoader])
    mcp_transports: dict[str, McpTransportFactory] = field(
        default_factory=dict[str, McpTransportFactory]
    )
    handlers: list[Handler] = field(default_factory=list[Handler])
    commands: dict[str, Command] = field(default_factory=dict[str, Command])
    search_providers: dict[str, SearchProvider] = field(default_factory=dict[str, SearchProvider])
    status_rows: dict[str, tuple[StatusRow, str]] = field(
        default_factory=dict[str, tuple[StatusRow, str]]
    )
    """by label: the row and the extension that owns it, in registration order"""
    web_fetcher: WebFetcher | None = None


@dataclass(frozen=True)
class _FileSource:
    """Where a file extension came from, so `reload` can check trust and import it again."""

    path: Path
    folder: Path
    trusted: Callable[[], bool]


class ExtensionHost:
    """Implements ExtensionApi. `install` runs one extension with its identity pinned."""

    def __init__(self) -> None:
        self.snapshot = Snapshot()
        self.diagnostics: list[Diagnostic] = []
        self.installed: list[str] = []
        self._current = "core"
        self._owners: dict[str, str] = {}
        self._disposers: list[tuple[str, Disposer]] = []
        self._ui = UiProxy()
        self._settings: JsonObject = {}
        self._skill_owners: list[str] = []
        self._sources: dict[str, _FileSource] = {}
        self._events = EventHandlers(self.snapshot.handlers, self._report)

    # ------------------------------------------------------------ ExtensionApi

    def on(self, event: str, handler: Callable[..., Any]) -> None:
        self._note("info", f"registered a handler for {event}")
        self.snapshot.handlers.append(Handler(event, handler, self._current))

    def register_tool(self, tool: Tool) -> None:
        self._claim(f"tool:{tool.name}")
        self.snapshot.tools.register(tool)
        # its permission shape, for what knows only the name (rules), until this host shuts down
        self._disposers.append((self._current, declare_tool(tool)))

    def register_mode(self, mode: Mode) -> None:
        self._claim(f"mode:{mode.name}")
        self.snapshot.modes[mode.name] = mode

    def register_compactor(self, compactor: Compactor) -> None:
        self._claim(f"compactor:{compactor.name}")
        self.snapshot.compactor = compactor
        self.snapshot.compactors[compactor.name] = compactor

    def register_extractor(self, extractor: Extractor) -> None:
        self._claim(f"extractor:{extractor.name}")
        budgeted = BudgetedExtractor(extractor, self._current, self._report)
        kept = [e for e in self.snapshot.extractors if e.name != extractor.name]
        self.snapshot.extractors = [*kept, budgeted]

    def register_provider(
        self, spec: ProviderSpec | str, factory: ProviderFactory | None = None
    ) -> None:
        if isinstance(spec, str):
            if factory is None:
                raise ValueError(f"provider {spec!r}: a prefix needs a factory")
            spec = _short_form(spec, factory)
        self._claim(f"provider:{spec.prefix}")
        self.snapshot.providers.pop(spec.prefix, None)
        self.snapshot.providers[spec.prefix] = spec

    def register_code_intelligence(self, provider: CodeIntelligenceProvider) -> None:
        self._claim("code_intelligence")
        self.snapshot.code_intelligence = provider

    def register_skill_loader(self, loader: SkillLoader) -> None:
        self._note("info", "registered a skill loader")
        self.snapshot.skill_loaders.append(loader)
        self._skill_owners.append(self._current)

    def register_mcp_transport(self, name: str, factory: McpTransportFactory) -> None:
        self._claim(f"mcp_transport:{name}")
        self.snapshot.mcp_transports[name] = factory

    def register_command(
        self, name: str, description: str, handler: CommandHandler, *, hint: str = ""
    ) -> None:
        name = name.removeprefix("/")
        if not COMMAND_NAME.fullmatch(name):
            raise ValueError(
                f"command name {name!r}: use lowercase letters, digits, '-', '_' and ':'"
            )
        self._claim(f"command:/{name}")
        self.snapshot.commands[name] = Command(
            name, description, handler, self._current, hint.strip()
        )

    def register_status(self, label: str, row: StatusRow) -> None:
        if not label.strip():
            raise ValueError("a status row needs a label")
        self._claim(f"status:{label}")
        self.snapshot.status_rows[label] = (row, self._current)

    def register_search_provider(self, provider: SearchProvider) -> None:
        self._claim(f"search_provider:{provider.name}")
        self.snapshot.search_providers[provider.name] = provider

    def register_web_fetcher(self, fetcher: WebFetcher) -> None:
        self._claim("web_fetcher")
        self.snapshot.web_fetcher = fetcher

    @property
    def ui(self) -> UiBridge:
        return self._ui

    def settings(self, section: str) -> JsonObject:
        found = self._settings.get(section)
        return dict(cast(JsonObject, found)) if isinstance(found, dict) else {}

    # ------------------------------------------------------------ host side

    def use_settings(self, sections: JsonObject) -> None:
        """The config sections `api.settings` answers from (the agent's, overrides applied)."""
        self._settings = sections

    def bind_ui(self, bridge: UiBridge | None) -> None:
        """Point `api.ui` at the surface's bridge (terminal, SDK callback, kernel comms)."""
        self._ui.bind(bridge)

    def attach(self, events: EventStream) -> Callable[[], None]:
        """Deliver `events` to the `on` handlers (those registered later too)."""
        return events.subscribe(self._events.deliver)

    def provider(self, prefix: str) -> ProviderSpec | None:
        return self.snapshot.providers.get(prefix)

    def provider_specs(self) -> list[ProviderSpec]:
        """Every registered provider, in registration order."""
        return list(self.snapshot.providers.values())

    def compactor(self, name: str | None = None) -> Compactor | None:
        """The named compactor (default: the last registered), given the registered extractors
        and code intelligence when it takes them."""
        chosen = self.snapshot.compactor if name is None else self.snapshot.compactors.get(name)
        if isinstance(chosen, ExtensibleCompactor):
            chosen.extend(self.snapshot.extractors, self.snapshot.code_intelligence)
        return chosen

    def code_index(self) -> CodeIntelligenceProvider | None:
        return self.snapshot.code_intelligence

    def search_provider(self, name: str) -> SearchProvider | None:
        return self.snapshot.search_providers.get(name)

    def search_provider_names(self) -> list[str]:
        return list(self.snapshot.search_providers)

    def web_fetcher(self) -> WebFetcher | None:
        return self.snapshot.web_fetcher

    def command(self, name: str) -> Command | None:
        return self.snapshot.commands.get(name.removeprefix("/"))

    def commands(self) -> list[Command]:
        """Registered slash commands, by name."""
        return sorted(self.snapshot.commands.values(), key=lambda c: c.name)

    def status_rows(self) -> list[tuple[str, str]]:
        """The extensions' `/status` rows, as they are now: a row that fails says so (with its
        extension), and the others still show."""
        rows: list[tuple[str, str]] = []
        for label, (row, owner) in self.snapshot.status_rows.items():
            try:
                text = row()
            except Exception as exc:
                text = f"({owner} could not say: {type(exc).__name__}: {exc})"
            if text is not None:
                rows.append((label, text))
        return rows

    def mcp_transport(self, name: str) -> McpTransportFactory | None:
        return self.snapshot.mcp_transports.get(name)

    def skill_loaders(self) -> list[tuple[str, SkillLoader]]:
        """Each registered skill loader with the extension that registered it, in order."""
        return list(zip(self._skill_owners, self.snapshot.skill_loaders, strict=True))

    def load_skills(self) -> list[dict[str, Any]]:
        """Every registered loader's skills, in registration order; one that raises is
        reported with its extension's identity and contributes nothing."""
        found: list[dict[str, Any]] = []
        for owner, loader in self.skill_loaders():
            try:
                found.extend(loader())
            except Exception as exc:
                self._report(owner, f"skill loader failed: {type(exc).__name__}: {exc}")
        return found

    async def install(self, name: str, extension: Extension) -> bool:
        """Run one extension; its registrations are attributed to `name`. False if it threw."""
        self._current = name
        try:
            result: Any = extension(self)
            if inspect.isawaitable(result):
                result = await result
            if callable(result):
                self._disposers.append((name, cast(Disposer, result)))
            self.installed.append(name)
            return True
        except Exception as exc:  # an extension's failure must not stop the others
            self._note("error", f"failed to install: {type(exc).__name__}: {exc}")
            log.warning("extension %s failed to install: %s", name, exc)
            return False
        finally:
            self._current = "core"

    async def install_entry_points(self, group: str = ENTRY_POINT_GROUP) -> None:
        for ep in sorted(entry_points(group=group), key=lambda e: e.name):
            try:
                extension = ep.load()
            except Exception as exc:
                self.diagnostics.append(Diagnostic(ep.name, "error", f"failed to load: {exc}"))
                continue
            await self.install(ep.name, extension)

    async def install_folder(self, folder: Path, *, trusted: bool | Callable[[], bool]) -> None:
        """Install `folder/*.py` extensions, each defining `def extension(api)`. `trusted` is
        asked again by `reload`."""
        if not folder.is_dir():
            return
        check: Callable[[], bool] = trusted if callable(trusted) else (lambda: trusted)
        for path in sorted(folder.glob("*.py")):
            name = f"{folder.name}/{path.name}"
            self._sources[name] = _FileSource(path, folder, check)
            await self._install_file(name)

    async def reload(self, name: str) -> bool:
        """Dispose of a file extension and import it again, after checking trust again."""
        source = self._sources.get(name)
        if source is None:
            self.diagnostics.append(
                Diagnostic(name, "error", "cannot reload: not a file extension")
            )
            return False
        await self._dispose(name)
        self.snapshot.handlers[:] = [h for h in self.snapshot.handlers if h.extension != name]
        for command in [c for c in self.snapshot.commands.values() if c.extension == name]:
            del self.snapshot.commands[command.name]
        if name in self.installed:
            self.installed.remove(name)
        return await self._install_file(name)

    async def _install_file(self, name: str) -> bool:
        source = self._sources[name]
        if not source.trusted():
            self.diagnostics.append(
                Diagnostic(name, "warning", "skipped: project extensions need --trust-project")
            )
            return False
        if not source.path.resolve().is_relative_to(source.folder.resolve()):
            self.diagnostics.append(
                Diagnostic(name, "error", "skipped: it links outside its folder")
            )
            return False
        extension = self._load_file(source.path, name)
        return extension is not None and await self.install(name, extension)

    def _load_file(self, path: Path, name: str) -> Extension | None:
        real = path.resolve()
        try:
            spec = importlib.util.spec_from_file_location(f"shard_ext_{real.stem}", real)
            if spec is None or spec.loader is None:
                raise ImportError("not a Python module")
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module
            spec.loader.exec_module(module)
            return cast(Extension, module.extension)
        except Exception as exc:
            self.diagnostics.append(Diagnostic(name, "error", f"failed to load: {exc}"))
            return None

    async def drain(self) -> None:
        """Wait for async `on` handlers still running."""
        await self._events.drain()

    async def shutdown(self) -> None:
        """Run disposers in reverse install order; one failing never starves the rest."""
        await self.drain()
        while self._disposers:
            name, dispose = self._disposers.pop()
            await self._run_disposer(name, dispose)

    async def _dispose(self, name: str) -> None:
        mine = [d for d in self._disposers if d[0] == name]
        self._disposers = [d for d in self._disposers if d[0] != name]
        for _, dispose in reversed(mine):
            await self._run_disposer(name, dispose)

    async def _run_disposer(self, name: str, dispose: Disposer) -> None:
        try:
            result = dispose()
            if inspect.isawaitable(result):
                await result
        except Exception as exc:
            self.diagnostics.append(Diagnostic(name, "error", f"disposer failed: {exc}"))

    def _report(self, extension: str, message: str) -> None:
        self.diagnostics.append(Diagnostic(extension, "error", message))

    def _claim(self, key: str) -> None:
        previous = self._owners.get(key)
        self._owners[key] = self._current
        if previous is None:
            self._note("info", f"registered {key}")
        else:
            self._note("warning", f"replaced {key} (was registered by {previous})")

    def _note(self, level: Literal["info", "warning", "error"], message: str) -> None:
        self.diagnostics.append(Diagnostic(self._current, level, message))


def _short_form(prefix: str, factory: ProviderFactory) -> ProviderSpec:
    """`register_provider(prefix, factory)`: a spec whose build hands the factory the model
    string's rest as written (no families: the 128k default window; the provider's own cost)."""
    return ProviderSpec(prefix=prefix, build=lambda setup: factory(setup.text))


@dataclass(frozen=True)
class Registered:
    """What the extensions of a machine register that is needed without an agent."""

    specs: list[ProviderSpec]
    """the providers, `bundled` first"""
    tools: list[Tool]
    """the tools, for their permission shapes (the rules that name them)"""


async def registered(bundled: Sequence[ProviderSpec], home: Path) -> Registered:
    """What an agent of `home` has from `bundled` and the `shard.extensions` entry points and
    `home/extensions/*.py`, for what needs it without an agent (reading a log, checking a model
    or a rule). A project's extensions are not run: whether the project is trusted is not known
    here."""
    host = ExtensionHost()

    def register(api: ExtensionApi) -> None:
        for spec in bundled:
            api.register_provider(spec)

    try:
        await host.install("shard.providers", register)
        await host.install_entry_points()
        await host.install_folder(home / "extensions", trusted=True)
        return Registered(host.provider_specs(), host.snapshot.tools.tools())
    finally:
        await host.shutdown()


async def registered_specs(bundled: Sequence[ProviderSpec], home: Path) -> list[ProviderSpec]:
    """The providers an agent of `home` has: `bundled`, then those the extensions register
    (`registered`)."""
    return (await registered(bundled, home)).specs
