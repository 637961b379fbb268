"""Where a remote agent kernel keeps its state: the server's `SHARD_HOME`, named to the kernel.

A kernel the server starts itself inherits the server's environment, `SHARD_HOME` included. A
kernel a kernel gateway starts (Enterprise Gateway, jupyter-kernel-gateway: `--gateway-url`)
gets only the `KERNEL_*` variables of the create request and what that gateway passes on, so
without being told it writes its session and event log under its own `~/.shard`, where the
server — which lists agents, pages their history and resumes them — cannot read. The server
therefore sends `KERNEL_SHARD_HOME`: its own `SHARD_HOME` (a volume both mount at the same
path), or `SHARD_KERNEL_HOME` when the kernels mount that volume elsewhere; the kernel adopts
it as its `SHARD_HOME` before anything reads it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping

from shard_core.engine.state import shard_home

KERNEL_HOME = "KERNEL_SHARD_HOME"
"""What the kernel reads (forwarded by every gateway: it starts with `KERNEL_`)."""
SERVER_SETTING = "SHARD_KERNEL_HOME"
"""Set on the server when the kernels see the shared state at another path than it does."""


def kernel_home_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variable a remote kernel needs to keep its state where the server reads it."""
    env = os.environ if env is None else env
    chosen = env.get(SERVER_SETTING, "").strip()
    return {KERNEL_HOME: chosen or str(shard_home())}


def adopt_kernel_home(env: MutableMapping[str, str] | None = None) -> None:
    """In the kernel: `KERNEL_SHARD_HOME`, when given, is this process's `SHARD_HOME`."""
    env = os.environ if env is None else env
    chosen = env.get(KERNEL_HOME, "").strip()
    if chosen:
        env["SHARD_HOME"] = chosen
