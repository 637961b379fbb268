"""The workspace kernel inside the command sandbox: the bwrap prefix and the manager that uses it.

A kernel Shard starts runs under the same bubblewrap layout as a bash command (workspace
writable, the rest read-only with credentials hidden, a private /tmp, its own pid namespace,
no network unless `sandbox.network`), with the scrubbed environment. It talks to Shard over ZMQ
`ipc` (Unix sockets) in a private folder that is the one extra writable bind: TCP on 127.0.0.1
cannot cross `--unshare-net`. That folder also holds the connection file (the HMAC key): the
kernel needs it, and a bash command cannot see it, its /tmp being private.

Inside, the kernel's parent is the namespace's init (pid 1), which ipykernel's parent poller
takes for "my parent died" when `JPY_PARENT_PID` names Shard's pid (the kernel quits at once):
it is set to 1, which ipykernel does not poll (pid 1 lives as long as the namespace), and
`--die-with-parent` ends the sandbox with Shard instead. Unset, ipykernel prints its banner on
stdout — the event stream of `shard run --json`. HOME is read-only there, so IPython's
and matplotlib's dirs go to the private /tmp unless set (no "not writable" warning per start).

Interrupts go as an `interrupt_request` message: jupyter_client's default SIGINT to the
kernel's process group reaches bwrap itself, which dies of it and takes the kernel with it
(measured: bwrap exits -2 and the kernel never finishes its cell).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import zmq
from jupyter_client.manager import AsyncKernelManager

from shard_core.contracts import ToolContext
from shard_core.tools.sandbox import Launch, Sandbox

_WRITABLE_DIRS = (("IPYTHONDIR", "/tmp/ipython"), ("MPLCONFIGDIR", "/tmp/matplotlib"))


class SandboxError(Exception):
    """The sandbox is required and not available; the message says why."""


@dataclasses.dataclass(frozen=True)
class Confinement:
    """The bwrap argv a kernel command is appended to (ending in `--`), and the launch whose
    `settle` moves away the protected files a run created (`shard_core.tools.protected`)."""

    argv: list[str]
    launch: Launch

    def settle(self) -> list[str]:
        return self.launch.settle()


async def confine(
    sandbox: Sandbox,
    ctx: ToolContext | None,
    cwd: Path,
    folder: Path,
    env: Mapping[str, str],
) -> Confinement | None:
    """How the kernel starts sandboxed, or None when it runs unsandboxed (`sandbox.mode: off`,
    or no bubblewrap here and the mode allows that). `ctx`: the first calling tool's (its roots
    are writable); without one, `cwd` is the only root."""
    if not zmq.has("ipc"):
        raise SandboxError("cannot sandbox the workspace kernel: libzmq has no ipc transport")
    if ctx is None:
        ctx = ToolContext(cwd=cwd, roots=[cwd], agent_id="", session_id="", call_id="")
    confined = dataclasses.replace(ctx, cwd=cwd, roots=[*ctx.roots, folder])
    launch = await sandbox.launch([], confined, env)
    if isinstance(launch, str):
        raise SandboxError(launch.replace("the command was not run", "no kernel was started"))
    if launch.sandbox != "bwrap":
        return None
    assert launch.argv[-1] == "--", launch.argv  # bwrap's options end there; the kernel follows
    extra = ["--setenv", "JPY_PARENT_PID", "1"]
    for name, where in _WRITABLE_DIRS:
        if name not in env:
            extra += ["--setenv", name, where]
    return Confinement([*launch.argv[:-1], *extra, "--"], launch)


async def sandbox_prefix(
    sandbox: Sandbox,
    ctx: ToolContext | None,
    cwd: Path,
    folder: Path,
    env: Mapping[str, str],
) -> list[str] | None:
    """`confine`'s argv alone."""
    found = await confine(sandbox, ctx, cwd, folder, env)
    return None if found is None else found.argv


class ConfinedKernelManager(AsyncKernelManager):
    """An AsyncKernelManager whose kernel command starts under `prefix` (restarts too)."""

    def __init__(self, prefix: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.prefix = prefix

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        spec = self.kernel_spec
        if spec is not None:
            spec.interrupt_mode = "message"
        return [*self.prefix, *super().format_kernel_cmd(extra_arguments)]
