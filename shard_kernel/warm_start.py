"""WarmStart: an agent kernel started ahead of its agent (the gateway's pool, gateway/pool.py),
which imports the engine and then waits for the one message that binds it.

A warm kernel is started with `SHARD_WARM_KERNEL=1` in the server's environment (its
`KERNEL_SHARD_*` left out) and does nothing an agent would see: it imports the modules an agent
is built from and answers kernel_info. The `shard_bind_request` shell message carries what a
cold start of the agent would have put in the kernel's process: its whole environment (model,
rules, mode, definition, `SHARD_HOME` are `KERNEL_SHARD_*` variables and `SHARD_HOME` there)
and its working folder. The kernel takes them before anything reads them, as its own: the
environment is replaced, not merged; the folder becomes the cwd and the import path's first
entry (`python -m` put the start folder there); then the agent boots as a cold kernel's does.
A kernel binds once: a second bind request, or one to a kernel started cold, is refused.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
from asyncio import Event
from collections.abc import Mapping
from pathlib import Path
from typing import Any

WARM_VARIABLE = "SHARD_WARM_KERNEL"
BIND_REQUEST = "shard_bind_request"
BIND_REPLY = "shard_bind_reply"
WARM_IMPORTS = (
    "shard_core.sdk",
    "shard_kernel.notebook_tools",
    "shard_kernel.recovery",
    "shard_kernel.slash",
    "shard_kernel.own_notebook",
    "shard_core.tools.read",
    "shard_core.tools.write",
    "shard_core.tools.edit",
    "shard_core.tools.find",
    "shard_core.tools.grep",
    "shard_core.tools.ls",
    "concurrent.futures",
)
"""What `ShardKernel._create` and a first turn import (measured: the rest of a cold boot)."""


BOOT_GC_THRESHOLD = (50_000, 50, 100)
"""Python's collection thresholds while the kernel imports and boots its agent: the boot makes
objects that live as long as the kernel, and at Python's default (700, 10, 10) it ran ~190
collections over them (measured in-process: ~100 ms, 9 % of a boot's CPU)."""
_PYTHON_GC_THRESHOLD = gc.get_threshold()


def boot_collections() -> None:
    """Fewer collections from here until `settle_collections` (the kernel's start)."""
    gc.set_threshold(*BOOT_GC_THRESHOLD)


def settle_collections() -> None:
    """Python's thresholds back once the agent is up (or could not start), and what exists now
    kept out of every later collection: it lives as long as the kernel (full collections took
    78-118 ms each here, twice a minute while an agent streams 1,000 events/s)."""
    gc.set_threshold(*_PYTHON_GC_THRESHOLD)
    gc.freeze()


class BindError(ValueError):
    """A bind request this kernel cannot take (bound already, started cold, bad content)."""


class WarmStart:
    def __init__(self, shell_handlers: dict[str, Any], session: Any, env: Mapping[str, str]):
        self.waiting = env.get(WARM_VARIABLE) == "1"
        self.started_warm = self.waiting
        self._session = session
        self._bound = Event()
        if not self.waiting:
            self._bound.set()
        shell_handlers[BIND_REQUEST] = self._on_bind

    def preload(self) -> None:
        """Import what the agent is built from (before the kernel answers kernel_info, so a
        pool counts it ready only once this is done)."""
        for name in WARM_IMPORTS:
            importlib.import_module(name)

    async def bound(self) -> None:
        """Return once the kernel belongs to an agent (at once for a cold kernel)."""
        await self._bound.wait()

    async def _on_bind(self, stream: Any, ident: Any, parent: dict[str, Any]) -> None:
        try:
            if not self.waiting:
                raise BindError("this kernel is bound already (a kernel binds once)")
            env, cwd = parse_binding(parent.get("content"))
            bind_process(env, cwd)
        except (BindError, OSError) as exc:
            content: dict[str, Any] = {"status": "error", "ename": "BindError", "evalue": str(exc)}
        else:
            self.waiting = False
            self._bound.set()
            content = {"status": "ok"}
        if self._session is not None:
            self._session.send(stream, BIND_REPLY, content, parent, ident)


def parse_binding(content: Any) -> tuple[dict[str, str], Path]:
    if not isinstance(content, dict):
        raise BindError("a bind request's content is an object {env, cwd}")
    env: Any = content.get("env")
    cwd: Any = content.get("cwd")
    if not isinstance(env, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in env.items()
    ):
        raise BindError("env must be an object of strings")
    if not isinstance(cwd, str) or not Path(cwd).is_absolute() or not Path(cwd).is_dir():
        raise BindError(f"cwd must be an absolute folder, not {cwd!r}")
    return dict(env), Path(cwd)


def bind_process(env: Mapping[str, str], cwd: Path) -> None:
    """Make this process the agent's: its folder, its environment, its import path."""
    from shard_kernel.gateway_reach import adopt_kernel_gateway
    from shard_kernel.state_home import adopt_kernel_home

    started_in = os.getcwd()
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    if sys.path and sys.path[0] == started_in:
        sys.path[0] = os.getcwd()
    adopt_kernel_home()  # as __main__ does at a cold start, now with the agent's variables
    adopt_kernel_gateway()
