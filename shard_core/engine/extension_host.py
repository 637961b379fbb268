"""ExtensionHost: the one registration surface, with attribution, diagnostics and disposers.

Bundled tools, modes, providers and the compactor are installed through it exactly like a
third-party extension. A throwing extension is reported and the others still load.
"""

from __future__ import annotations

import importlib.util
import inspect
import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Literal, cast

from shard_core.contracts import (
    CodeIntelligenceProvider,
    Compactor,
    Disposer,
    Extension,
    Extractor,
    McpTransportFactory,
    Mode,
    ProviderFactory,
    SkillLoader,
    Tool,
    UiBridge,
)
from shard_core.engine.registry import ToolRegistryImpl
from shard_core.engine.ui import UiProxy

log = logging.getLogger("shard.extensions")

ENTRY_POINT_GROUP = "shard.extensions"


@dataclass(frozen=True)
class Diagnostic:
    extension: str
    level: Literal["info", "warning", "error"]
    message: str


@dataclass
class Snapshot:
    """Everything registered, read by the session at assembly time."""

    tools: ToolRegistryImpl = field(default_factory=ToolRegistryImpl)
    modes: dict[str, Mode] = field(default_factory=dict[str, Mode])
    compactor: Compactor | None = None
    extractors: list[Extractor] = field(default_factory=list[Extractor])
    providers: dict[str, ProviderFactory] = field(default_factory=dict[str, ProviderFactory])
    code_intelligence: CodeIntelligenceProvider | None = None
    skill_loaders: list[SkillLoader] = field(default_factory=list[SkillLoader])
    mcp_transports: dict[str, McpTransportFactory] = field(
        default_factory=dict[str, McpTransportFactory]
    )
    handlers: list[tuple[str, Callable[..., Any]]] = field(
        default_factory=list[tuple[str, Callable[..., Any]]]
    )


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

    # ------------------------------------------------------------ ExtensionApi

    def on(self, event: str, handler: Callable[..., Any]) -> None:
        self.snapshot.handlers.append((event, handler))

    def register_tool(self, tool: Tool) -> None:
        self._claim(f"tool:{tool.name}")
        self.snapshot.tools.register(tool)

    def register_mode(self, mode: Mode) -> None:
        self._claim(f"mode:{mode.name}")
        self.snapshot.modes[mode.name] = mode

    def register_compactor(self, compactor: Compactor) -> None:
        self._claim("compactor")
        self.snapshot.compactor = compactor

    def register_extractor(self, extractor: Extractor) -> None:
        self._claim(f"extractor:{extractor.name}")
        kept = [e for e in self.snapshot.extractors if e.name != extractor.name]
        self.snapshot.extractors = [*kept, extractor]

    def register_provider(self, prefix: str, factory: ProviderFactory) -> None:
        self._claim(f"provider:{prefix}")
        self.snapshot.providers[prefix] = factory

    def register_code_intelligence(self, provider: CodeIntelligenceProvider) -> None:
        self._claim("code_intelligence")
        self.snapshot.code_intelligence = provider

    def register_skill_loader(self, loader: SkillLoader) -> None:
        self._note("info", "registered a skill loader")
        self.snapshot.skill_loaders.append(loader)

    def register_mcp_transport(self, name: str, factory: McpTransportFactory) -> None:
        self._claim(f"mcp_transport:{name}")
        self.snapshot.mcp_transports[name] = factory

    @property
    def ui(self) -> UiBridge:
        return self._ui

    # ------------------------------------------------------------ host side

    def bind_ui(self, bridge: UiBridge | None) -> None:
        """Point `api.ui` at the surface's bridge (terminal, SDK callback, kernel comms)."""
        self._ui.bind(bridge)

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

    async def install_folder(self, folder: Path, *, trusted: bool) -> None:
        """Install `folder/*.py` extensions, each defining `def extension(api)`."""
        if not folder.is_dir():
            return
        for path in sorted(folder.glob("*.py")):
            name = f"{folder.name}/{path.name}"
            if not trusted:
                self.diagnostics.append(
                    Diagnostic(name, "warning", "skipped: project extensions need --trust-project")
                )
                continue
            extension = self._load_file(path, name)
            if extension is not None:
                await self.install(name, extension)

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

    async def shutdown(self) -> None:
        """Run disposers in reverse install order; one failing never starves the rest."""
        while self._disposers:
            name, dispose = self._disposers.pop()
            try:
                result = dispose()
                if inspect.isawaitable(result):
                    await result
            except Exception as exc:
                self.diagnostics.append(Diagnostic(name, "error", f"disposer failed: {exc}"))

    def _claim(self, key: str) -> None:
        previous = self._owners.get(key)
        self._owners[key] = self._current
        if previous is None:
            self._note("info", f"registered {key}")
        else:
            self._note("warning", f"replaced {key} (was registered by {previous})")

    def _note(self, level: Literal["info", "warning", "error"], message: str) -> None:
        self.diagnostics.append(Diagnostic(self._current, level, message))
