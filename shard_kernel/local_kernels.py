"""Start `shard` kernels from this installation, whatever Jupyter's data path says.

An editable install may not put the kernelspec on Jupyter's path; this spec manager falls back
to the spec that ships with the package, run by the current interpreter.

Kernels a command starts for itself (`shard demo`, `shard batch`) talk over Unix sockets in a
private folder (`private_kernel_manager`): no TCP port another local user could reach, and so no
"Kernel is running over TCP without encryption" warning on every run.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import zmq
from jupyter_client.kernelspec import KernelSpec, KernelSpecManager, NoSuchKernel
from jupyter_client.manager import AsyncKernelManager, KernelManager

from shard_kernel.kernelspec import KERNEL_NAME, spec_source

# A Unix socket path holds 108 bytes on Linux and 104 on macOS; a socket is `<folder>/k-<port>`.
SOCKET_PATH_MAX = 100
_PORT_SUFFIX = len("/k-65535")


class ShardSpecManager(KernelSpecManager):
    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        try:
            return super().get_kernel_spec(kernel_name)
        except NoSuchKernel:
            if kernel_name != KERNEL_NAME:
                raise
            return self._packaged()

    def _packaged(self) -> KernelSpec:
        spec = KernelSpec.from_resource_dir(str(spec_source()))
        spec.argv = [sys.executable, *spec.argv[1:]]
        return spec


def shard_kernel_manager(**kwargs: Any) -> KernelManager:
    return KernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=ShardSpecManager(), **kwargs)


@contextmanager
def private_kernel_manager(**kwargs: Any) -> Iterator[KernelManager]:
    """A `shard` kernel manager for a kernel only this process talks to.

    Its sockets and connection file live in a fresh 0700 folder under the temp dir, removed on
    exit (with whatever a crashed kernel left). Where Unix sockets are unavailable (no IPC in
    libzmq) or every temp path is too long for one, the kernel uses TCP on loopback as before.
    """
    folder = _socket_folder()
    km = shard_kernel_manager(**_ipc(folder), **kwargs)
    try:
        yield km
    finally:  # an error or Ctrl-C on the way: stop the kernel rather than leave it running
        if km.has_kernel:
            km.shutdown_kernel(now=True)
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


@asynccontextmanager
async def private_async_kernel_manager(**kwargs: Any) -> AsyncIterator[AsyncKernelManager]:
    """`private_kernel_manager` for an asyncio caller: its clients never block the loop, so a
    caller can bound a cell's time, react to signals and see the kernel die (`shard batch`)."""
    folder = _socket_folder()
    km = AsyncKernelManager(
        kernel_name=KERNEL_NAME, kernel_spec_manager=ShardSpecManager(), **_ipc(folder), **kwargs
    )
    try:
        yield km
    finally:
        if km.has_kernel:
            await km.shutdown_kernel(now=True)
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


def _ipc(folder: Path | None) -> dict[str, str]:
    if folder is None:
        return {}
    return {
        "transport": "ipc",
        "ip": str(folder / "k"),
        "connection_file": str(folder / "kernel.json"),
    }


def _socket_folder() -> Path | None:
    if not zmq.has("ipc"):
        return None
    for parent in dict.fromkeys([tempfile.gettempdir(), "/tmp"]):
        if len(parent) + len("/shard-k-12345678") + _PORT_SUFFIX > SOCKET_PATH_MAX:
            continue
        try:
            return Path(tempfile.mkdtemp(prefix="shard-k-", dir=parent))
        except OSError:
            continue
    return None
