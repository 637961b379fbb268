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
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from shard_core.contracts import ToolContext
from shard_core.tools.bwrap import ISOLATION, Layout, bwrap_argv
from shard_core.tools.hidden import hidden_paths

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
        self, argv: Sequence[str], ctx: ToolContext, env: Mapping[str, str]
    ) -> Launch | str:
        """The argv to spawn, or (mode `required`, no bwrap) why nothing may run."""
        if self.policy.mode == "off":
            return Launch(list(argv), "off")
        found = await asyncio.to_thread(self._once.get, self._probe)
        if found.bwrap is None:
            if self.policy.mode == "required":
                return (
                    f"sandbox.mode is 'required' but no sandbox is available: {found.problem}; "
                    "the command was not run"
                )
            self._once.warn(found.problem)
            return Launch(list(argv), "unavailable")
        return Launch(bwrap_argv(found.bwrap, argv, self.layout(ctx, env)), "bwrap")

    def layout(self, ctx: ToolContext, env: Mapping[str, str]) -> Layout:
        writable = [_real(p) for p in [*ctx.roots, *self.policy.extra_rw]]
        readable = [_real(p) for p in self.policy.extra_ro] + _toolchains_in_tmp(env)
        return Layout(
            cwd=Path(ctx.cwd),
            writable=writable,
            readable=readable,
            hidden=hidden_paths([os.environ, env], ctx.agent_id, ctx.roots),
            network=self.policy.network,
        )


def _toolchains_in_tmp(env: Mapping[str, str]) -> list[Path]:
    """The Python environment Shard runs in and the command's PATH folders, where they live
    under /tmp: the command's private /tmp would hide them (a checkout in a temp folder, a CI
    clone, a venv made by a test), and `python` or `pytest` would not be found. Read-only."""
    tmp = Path("/tmp")
    candidates = [sys.prefix, sys.base_prefix, *env.get("PATH", "").split(os.pathsep)]
    found: list[Path] = []
    for raw in candidates:
        if not raw:
            continue
        path = _real(raw)
        if path.is_relative_to(tmp) and path != tmp and path.exists() and path not in found:
            found.append(path)
    return found


def _real(path: Path | str) -> Path:
    return Path(os.path.realpath(os.path.expanduser(path)))
