"""The providers this machine's agents have, for what checks a model before any agent exists
(the gateway's `agent_create`, the default model it shows, a notebook's model, `shard demo`,
`shard batch`): the bundled specs and those the `shard.extensions` entry points and
`SHARD_HOME/extensions/*.py` register (`extension_host.registered_specs`), so a third-party provider
is seen wherever a bundled one is. Looked up again only when an extension file changed."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from shard_core.engine.state import shard_home

if TYPE_CHECKING:
    from shard_core.contracts.provider import ProviderSpec

_Stamp = tuple[str, tuple[tuple[str, int], ...]]
_found: dict[_Stamp, list[ProviderSpec]] = {}
_lock = threading.Lock()


def provider_specs(home: Path | None = None) -> list[ProviderSpec]:
    """Every registered spec, bundled first. Safe on a running event loop (a server
    handler's): the extensions are installed on a thread of their own."""
    folder = (home or shard_home()).expanduser()
    stamp = _stamp(folder)
    with _lock:
        if stamp not in _found:
            _found.clear()  # only the current state of the files is worth keeping
            _found[stamp] = _installed(folder)
        return list(_found[stamp])


def _stamp(home: Path) -> _Stamp:
    try:
        files = sorted((home / "extensions").glob("*.py"))
        return str(home), tuple((f.name, f.stat().st_mtime_ns) for f in files)
    except OSError:
        return str(home), ()


def _installed(home: Path) -> list[ProviderSpec]:
    from shard_core.engine.extension_host import registered_specs
    from shard_core.providers.bundled import BUNDLED

    found: list[list[ProviderSpec]] = []
    failed: list[BaseException] = []

    def install() -> None:
        try:
            found.append(asyncio.run(registered_specs(BUNDLED, home)))
        except BaseException as exc:  # raised again on the caller's thread
            failed.append(exc)

    thread = threading.Thread(target=install, name="shard-provider-specs", daemon=True)
    thread.start()
    thread.join()
    if failed:
        raise failed[0]
    return found[0]
