"""What this machine's agents are given, for what checks a model or a rule before any agent
exists: the providers (the gateway's `agent_create`, the default model it shows, a notebook's
model, `shard demo`, `shard batch`) and the tools' permission shapes (`shard rules check`, the
gateway's `agent_create` rules). Each is the bundled ones and those the `shard.extensions` entry
points and `SHARD_HOME/extensions/*.py` register (`extension_host.registered`), so a third-party
provider or path tool is seen wherever a bundled one is. Looked up again only when an extension
file changed."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from shard_core.engine.state import shard_home

if TYPE_CHECKING:
    from shard_core.contracts.provider import ProviderSpec
    from shard_core.engine.extension_host import Registered

_Stamp = tuple[str, tuple[tuple[str, int], ...]]
_found: dict[_Stamp, Registered] = {}
_lock = threading.Lock()
_shapes: list[Callable[[], None]] = []
"""withdraws the shapes `declare_tool_shapes` declared last"""


def provider_specs(home: Path | None = None) -> list[ProviderSpec]:
    """Every registered spec, bundled first. Safe on a running event loop (a server
    handler's): the extensions are installed on a thread of their own."""
    return list(_registered(home).specs)


def declare_tool_shapes(home: Path | None = None) -> None:
    """Make every tool's permission shape known in this process, as in an agent that has the
    tool: the kernel's bundled tools' (the notebook and web tools: `NotebookEdit(*.ipynb)`,
    `WebFetch(domain:…)`) and those the extensions register (a third party's `Peek(src/**)`).
    Each call first withdraws what the one before declared, so a shape whose extension file
    changed or went goes with it."""
    from shard_core.capabilities.web import WEB_TOOL_TYPES
    from shard_core.engine.access import declare_tool
    from shard_kernel.notebook_tools.extension import TOOL_TYPES

    found = _registered(home)
    with _lock:
        for withdraw in _shapes:
            withdraw()
        tools = [*TOOL_TYPES, *WEB_TOOL_TYPES, *found.tools]
        _shapes[:] = [declare_tool(tool) for tool in tools]


def _registered(home: Path | None) -> Registered:
    folder = (home or shard_home()).expanduser()
    stamp = _stamp(folder)
    with _lock:
        if stamp not in _found:
            _found.clear()  # only the current state of the files is worth keeping
            _found[stamp] = _installed(folder)
        return _found[stamp]


def _stamp(home: Path) -> _Stamp:
    try:
        files = sorted((home / "extensions").glob("*.py"))
        return str(home), tuple((f.name, f.stat().st_mtime_ns) for f in files)
    except OSError:
        return str(home), ()


def _installed(home: Path) -> Registered:
    from shard_core.engine.extension_host import registered
    from shard_core.providers.bundled import BUNDLED

    found: list[Registered] = []
    failed: list[BaseException] = []

    def install() -> None:
        try:
            found.append(asyncio.run(registered(BUNDLED, home)))
        except BaseException as exc:  # raised again on the caller's thread
            failed.append(exc)

    thread = threading.Thread(target=install, name="shard-registrations", daemon=True)
    thread.start()
    thread.join()
    if failed:
        raise failed[0]
    return found[0]
