"""Sandbox: whether and how a tool's command runs under bubblewrap, probed once per process.

The permission gate decides what the agent may ask for; the sandbox bounds what a command can
do once allowed: the workspace read-write, the rest of the filesystem read-only with secrets
hidden, no network unless the agent's setting allows it, its processes ended with it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from shard_core.contracts import ToolContext
from shard_core.tools.bwrap import ISOLATION, Layout, bwrap_argv
from shard_core.tools.git_identity import identity_config
from shard_core.tools.hidden import SOCKET_FOLDERS, hidden_paths
from shard_core.tools.protected import Protection, quarantine
from shard_core.tools.protected import protection as protection_of
from shard_core.tools.toolchains import toolchain_dirs

SandboxMode = Literal["bwrap", "off", "required"]
PROBE_TIMEOUT = 10.0
log = logging.getLogger("shard.sandbox")


@dataclass(frozen=True)
class SandboxPolicy:
    """config.json's `sandbox` section. `bwrap`: sandbox when bubblewrap works here, else warn
    once and fall back to the permission rules alone; `required`: refuse to run without it."""

    mode: SandboxMode = "bwrap"
    network: bool = False
    extra_ro: tuple[str, ...] = ()
    extra_rw: tuple[str, ...] = ()
    allow_unix_sockets: tuple[str, ...] = ()
    secret_files: tuple[str, ...] = ()
    """files to hide wherever they are (the ones `credentials.<name>.file` names)"""


@dataclass(frozen=True)
class Probe:
    """The usable `bwrap` binary, or why there is none."""

    bwrap: str | None
    problem: str = ""


@dataclass(frozen=True)
class Launch:
    """What to spawn, and under which protection (`bwrap`, `off`, or `unavailable`)."""

    argv: list[str]
    sandbox: Literal["bwrap", "off", "unavailable"]
    protection: Protection | None = None

    def settle(self) -> list[str]:
        """Once the process has ended: move away the protected files it created (a path no
        mount could cover, `protected.py`), with a note for each to show with its result."""
        return [] if self.protection is None else quarantine(self.protection)


def probe_bwrap() -> Probe:
    """Whether bubblewrap can build a sandbox here: it runs `true` under the same namespaces the
    real commands get (user namespaces can be refused by the kernel or a container)."""
    found = shutil.which("bwrap")
    if found is None:
        return Probe(None, "bubblewrap (bwrap) is not installed")
    argv = [found, *ISOLATION, "--unshare-net", "--ro-bind", "/", "/", "--proc", "/proc", "true"]
    try:
        done = subprocess.run(
            argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=PROBE_TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Probe(None, f"bwrap could not run: {exc}")
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", errors="replace").strip() or f"exit {done.returncode}"
        return Probe(None, f"bwrap cannot create a sandbox here ({reason})")
    return Probe(found)


class _Once:
    """The probe result for this process, computed on first use off the event loop."""

    def __init__(self) -> None:
        self._result: Probe | None = None
        self._lock = threading.Lock()
        self._warned = False

    @property
    def known(self) -> Probe | None:
        """The result, once computed (no thread needed to read it)."""
        return self._result

    def get(self, probe: Callable[[], Probe]) -> Probe:
        with self._lock:
            if self._result is None:
                self._result = probe()
            return self._result

    def warn(self, problem: str) -> None:
        with self._lock:
            if self._warned:
                return
            self._warned = True
        log.warning(
            "shard: commands run WITHOUT an OS sandbox, under the permission rules alone: %s. "
            "Install bubblewrap, or set sandbox.mode to 'required' to refuse instead.",
            problem,
        )


_PROBED = _Once()


class Sandbox:
    """Turns a command's argv into the argv to spawn, for one tool's calls."""

    def __init__(
        self,
        policy: SandboxPolicy | None = None,
        *,
        probe: Callable[[], Probe] | None = None,
    ) -> None:
        self.policy = policy or SandboxPolicy()
        # A probe of its own (tests) is remembered per Sandbox; the default one per process.
        self._once = _PROBED if probe is None else _Once()
        self._probe = probe or probe_bwrap

    async def launch(
        self,
        argv: Sequence[str],
        ctx: ToolContext,
        env: Mapping[str, str],
        *,
        shown: Sequence[Path] = (),
    ) -> Launch | str:
        """The argv to spawn, or (mode `required`, no bwrap) why nothing may run. `shown`:
        files the command may read wherever they are (a hook's transcript in SHARD_HOME)."""
        if self.policy.mode == "off":
            return Launch(list(argv), "off")
        found = self._once.known or await asyncio.to_thread(self._once.get, self._probe)
        if found.bwrap is None:
            if self.policy.mode == "required":
                return (
                    f"sandbox.mode is 'required' but no sandbox is available: {found.problem}; "
                    "the command was not run"
                )
            self._once.warn(found.problem)
            return Launch(list(argv), "unavailable")
        layout, protection = await asyncio.to_thread(self.plan, ctx, env, shown)
        return Launch(bwrap_argv(found.bwrap, argv, layout), "bwrap", protection)

    def layout(self, ctx: ToolContext, env: Mapping[str, str]) -> Layout:
        """What a command in `ctx` may see and change."""
        return self.plan(ctx, env)[0]

    def plan(
        self, ctx: ToolContext, env: Mapping[str, str], shown: Sequence[Path] = ()
    ) -> tuple[Layout, Protection]:
        """The layout, and the protection to settle when the process ends (`Launch.settle`; a
        long-lived process such as a kernel calls it when it exits). Creates the missing
        protected folders on the host (`protected.py`)."""
        policy = self.policy
        writable = [_real(p) for p in [*ctx.roots, *policy.extra_rw]]
        sockets = [_real(p) for p in policy.allow_unix_sockets]
        environs = [os.environ, env]
        hidden = hidden_paths(
            environs, ctx.agent_id, ctx.roots, files=policy.secret_files, sockets=sockets
        )
        folders = [h for h in hidden if h.is_dir()] + [Path("/tmp")]
        extra = [_real(p) for p in policy.extra_ro]
        readable = toolchain_dirs(environs, folders, [*_resolver(hidden)])
        readable = [*readable, *(p for p in extra if p not in readable)]
        readable = _not_inside_a_secret(readable, hidden, environs, extra)
        protection = protection_of([_real(r) for r in ctx.roots], Path(ctx.cwd))
        layout = Layout(
            cwd=Path(ctx.cwd),
            writable=writable,
            readable=readable,
            hidden=hidden,
            network=policy.network,
            pinned=protection.pinned,
            protected=protection.protected,
            sockets=sockets,
            files=_gitconfig(env, hidden),
            shown=[real for p in shown if (real := _real(p)).is_file()],
        )
        return layout, protection


def _not_inside_a_secret(
    readable: list[Path],
    hidden: Sequence[Path],
    environs: Sequence[Mapping[str, str]],
    extra: Sequence[Path],
) -> list[Path]:
    """The toolchain folders that are not a hidden path nor inside one (a PATH entry under
    SHARD_HOME or another agent's workspace), but for the folders that hide whole: HOME, /run,
    /tmp. `sandbox.extra_ro` is shown whatever it is."""
    wholes = {_real(env.get("HOME") or Path.home()) for env in environs}
    wholes |= {_real(p) for p in SOCKET_FOLDERS} | {Path("/tmp")}
    specific = [h for h in hidden if h not in wholes]
    return [
        p for p in readable
        if p in extra or not any(p == h or p.is_relative_to(h) for h in specific)
    ]  # fmt: skip


def _gitconfig(env: Mapping[str, str], hidden: Sequence[Path]) -> list[tuple[Path, Path]]:
    """Git's identity at `~/.gitconfig`, when HOME is hidden (`git_identity.py`)."""
    home = _real(env.get("HOME") or Path.home())
    if home not in hidden:
        return []
    made = identity_config(env)
    return [] if made is None else [(made, home / ".gitconfig")]


def _resolver(hidden: Sequence[Path]) -> list[Path]:
    """/etc/resolv.conf, when it points into a hidden folder (systemd-resolved's, under /run):
    a plain file, so a command allowed the network can still resolve names."""
    real = Path(os.path.realpath("/etc/resolv.conf"))
    if real.is_file() and any(real.is_relative_to(h) for h in hidden):
        return [real]
    return []


def _real(path: Path | str) -> Path:
    return Path(os.path.realpath(os.path.expanduser(path)))
