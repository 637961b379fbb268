"""Agent kernels forked from a pre-imported template instead of spawned: `ForkingProvisioner`,
a jupyter_client `LocalProvisioner` whose launch asks the server's fork template
(shard_kernel/forkserver.py) for the kernel, and `ForkedProcess`, the Popen-like handle on a
kernel that is the template's child, not the server's.

A spawned agent kernel spends about 1.2 CPU-s importing the engine, ipykernel and the tools
before its first answer; a forked one starts with them imported (the template paid once). The
provisioner forks only a launch that is exactly the `shard` kernelspec's command (`<python> -m
shard_kernel -f <conn>`) with the template's interpreter and the template's values of every
variable that changes what an import finds or how the interpreter runs (`PYTHON*`, `VIRTUAL_ENV`,
`LD_PRELOAD`, `LD_LIBRARY_PATH`); anything else, a template that cannot start, died or refuses,
launches as LocalProvisioner does (one warning per reason). The kernelspec itself is unchanged:
Enterprise Gateway and other clients of kernel.json keep the normal spawn.

`ForkedProcess` holds a pidfd from the template (opened before the template can reap the pid,
so no pid reuse race): exit readiness comes from it, signals go through it, and the exit code
comes from the template, which reaps its children and reports each. A kernel whose template
died is reaped by init, and its code is unknown (reported as 1).

One template per server process (`shared_template`), started by the first launch that can
fork (the warm pool's first kernel, at the server's start, when there is a pool; else the
first agent's, which then costs what a spawn does: a server that starts no agent pays
nothing); the gateway's `stop_extension` retires it (no more forks; it exits
once its kernels have ended) and `shutdown_all` closes it after the kernels' shutdown.
`--WarmableKernelManager.fork_kernels=True` or `SHARD_FORK_KERNELS=1` turns forking on, under
Linux only (pidfds, /proc). It is off by default: a forked kernel is the template's child, not
the server's, and its /proc/PID/environ is the template's, so tools that find a server's kernels
in its process tree, or read a kernel's environment in /proc, do not see them there.

`shard batch`, `shard run` and `shard demo` start one kernel without a server and spawn it: a
template there would import what that kernel imports (2.1 CPU-s to ready, measured at load 10)
before forking it, so the one kernel would start no sooner.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import Any

from jupyter_client.provisioning.local_provisioner import LocalProvisioner

from shard_kernel.forkserver import ROOM

FORK_VARIABLE = "SHARD_FORK_KERNELS"
READY_TIMEOUT = 120.0
"""Longest a launch waits for the template's imports (a loaded machine: several seconds)."""
REPLY_TIMEOUT = 30.0
IMPORT_VARIABLES = ("VIRTUAL_ENV", "LD_PRELOAD", "LD_LIBRARY_PATH")
UNKNOWN_EXIT = 1
MAX_MESSAGE = 1 << 20


def fork_default() -> bool:
    return sys.platform.startswith("linux") and os.environ.get(FORK_VARIABLE, "0") == "1"


def import_key(env: dict[str, str]) -> dict[str, str]:
    """The variables a forked kernel must share with its template."""
    return {k: v for k, v in env.items() if k.startswith("PYTHON") or k in IMPORT_VARIABLES}


class TemplateError(RuntimeError):
    pass


class ForkTemplate:
    """The server's side of one template process."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        env = dict(os.environ if env is None else env)
        self.executable = sys.executable
        self.key = import_key(env)
        self.sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.proc = subprocess.Popen(
                [
                    self.executable,
                    "-m",
                    "shard_kernel.forkserver",
                    str(theirs.fileno()),
                    "-" * ROOM,
                ],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                env=env,
                start_new_session=True,
            )
        finally:
            theirs.close()
        self.sock.setblocking(False)
        self.ready = False
        self.gone = False
        self.retired = False
        self.exits: dict[int, int] = {}
        self._replies: dict[int, tuple[dict[str, Any], list[int]]] = {}
        self._next = 0
        self._lock = threading.Lock()
        self._forking = asyncio.Lock()  # one waiter on the socket at a time (add_reader)
        self._wakers: list[tuple[asyncio.AbstractEventLoop, Any]] = []
        """the waiting `_readable`s: a message another caller drained wakes them (the socket
        is then no longer readable; a launch's `usable()` drains while a fork awaits its reply)"""

    @property
    def pid(self) -> int:
        return self.proc.pid

    def usable(self) -> bool:
        self.drain()
        if self.gone:
            self.proc.poll()  # reap it
        return not self.gone

    def drain(self) -> None:
        """Take every message waiting on the socket (never blocks)."""
        taken = False
        with self._lock:
            while not self.gone:
                try:
                    data, fds, _flags, _addr = socket.recv_fds(self.sock, MAX_MESSAGE, 4)
                except (BlockingIOError, InterruptedError):
                    break
                except OSError:
                    data, fds = b"", []
                taken = True
                if not data:
                    self._lost()
                    break
                self._take(json.loads(data), fds)
        for loop, wake in list(self._wakers) if taken else ():
            loop.call_soon_threadsafe(wake)

    def _take(self, message: dict[str, Any], fds: list[int]) -> None:
        if "ready" in message:
            self.ready = True
        elif "exited" in message:
            self.exits[int(message["exited"])] = int(message["code"])
        elif "id" in message:
            self._replies[int(message["id"])] = (message, fds)
        else:
            for fd in fds:
                os.close(fd)

    def _lost(self) -> None:
        self.gone = True
        self.sock.close()
        for _message, fds in self._replies.values():
            for fd in fds:
                os.close(fd)
        self._replies.clear()

    async def _readable(self, within: float) -> None:
        loop = asyncio.get_running_loop()
        waiter = loop.create_future()
        fd = self.sock.fileno()
        waker = (loop, lambda: waiter.done() or waiter.set_result(None))
        loop.add_reader(fd, waker[1])
        self._wakers.append(waker)
        try:
            await asyncio.wait_for(waiter, within)
        finally:
            loop.remove_reader(fd)
            self._wakers.remove(waker)

    async def _until(self, done: Any, within: float, what: str) -> None:
        deadline = time.monotonic() + within
        while True:
            self.drain()
            if done():
                return
            if self.gone:
                raise TemplateError(f"the template ended (exit {self.proc.poll()}) {what}")
            left = deadline - time.monotonic()
            if left <= 0:
                raise TemplateError(f"no answer from the template {what}")
            with contextlib.suppress(TimeoutError):
                await self._readable(left)

    async def wait_ready(self, within: float = READY_TIMEOUT) -> None:
        await self._until(lambda: self.ready, within, "before it was ready")

    async def fork(self, argv: list[str], env: dict[str, str], cwd: str) -> tuple[int, int]:
        """Fork a kernel running `python -m shard_kernel <argv>`: (its pid, a pidfd on it)."""
        async with self._forking:
            return await self._fork(argv, env, cwd)

    async def _fork(self, argv: list[str], env: dict[str, str], cwd: str) -> tuple[int, int]:
        if self.retired:  # it may have exited already: its socket would say only EBADF
            raise TemplateError("the template is retired: it forks no more")
        await self.wait_ready()
        self._next += 1
        rid = self._next
        request = {"id": rid, "argv": argv, "env": env, "cwd": cwd}
        try:
            self.sock.send(json.dumps(request).encode())
        except OSError as exc:
            raise TemplateError(f"the template cannot be reached: {exc}") from exc
        await self._until(lambda: rid in self._replies, REPLY_TIMEOUT, "to a fork")
        reply, fds = self._replies.pop(rid)
        if "error" in reply or len(fds) != 1:
            for fd in fds:
                os.close(fd)
            raise TemplateError(reply.get("error") or "the template sent no pidfd")
        return int(reply["pid"]), fds[0]

    def exit_code(self, pid: int, timeout: float = 0.0) -> int | None:
        """The code of an ended child, once the template reports it (UNKNOWN_EXIT if it cannot)."""
        deadline = time.monotonic() + timeout
        while True:
            self.drain()
            if pid in self.exits:
                return self.exits.pop(pid)
            if self.gone:
                return UNKNOWN_EXIT
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            select.select([self.sock], [], [], left)

    def retire(self) -> None:
        """Fork no more; the template exits once its kernels have ended."""
        self.retired = True
        if not self.gone:
            with contextlib.suppress(OSError):
                self.sock.send(b'{"retire": true}')

    async def close(self) -> None:
        """Close the socket (the template exits) and reap the template."""
        with self._lock:
            if not self.gone:
                self._lost()
        await asyncio.get_running_loop().run_in_executor(None, self._reap)

    def _reap(self, within: float = 5.0) -> None:
        try:
            self.proc.wait(within)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


_template: ForkTemplate | None = None


def shared_template(*, start: bool = True) -> ForkTemplate | None:
    """This server's template (started now if `start` and none runs; a dead one is replaced
    only by an explicit restart: a template that died once is not trusted again)."""
    global _template
    if _template is None and start:
        _template = ForkTemplate()
    return _template


async def close_shared_template() -> bool:
    """End this server's template, if one was started (True then)."""
    global _template
    template, _template = _template, None
    if template is None:
        return False
    await template.close()
    return True


class ForkedProcess:
    """A Popen-like handle on a kernel the template forked (not this process's child)."""

    stdin = stdout = stderr = None

    def __init__(self, template: ForkTemplate, pid: int, pidfd: int) -> None:
        self.template = template
        self.pid = pid
        self.args: list[str] = []
        self.returncode: int | None = None
        self._pidfd: int | None = pidfd

    def _ended(self, timeout: float) -> bool:
        if self._pidfd is None:
            return True
        readable, _, _ = select.select([self._pidfd], [], [], timeout)
        return bool(readable)

    def _settle(self, timeout: float) -> int | None:
        code = self.template.exit_code(self.pid, timeout)
        if code is not None:
            self.returncode = code
            if self._pidfd is not None:
                os.close(self._pidfd)
                self._pidfd = None
        return code

    def poll(self) -> int | None:
        if self.returncode is None and self._ended(0):
            self._settle(0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is not None:
            return self.returncode
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._ended(1.0 if deadline is None else max(0.0, deadline - time.monotonic())):
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(self.args, timeout or 0)
        code = self._settle(5.0)  # the template reaps at once; it is gone if it does not
        return UNKNOWN_EXIT if code is None else code

    def send_signal(self, signum: int) -> None:
        if self.returncode is not None or self._pidfd is None:
            return
        signal.pidfd_send_signal(self._pidfd, signum)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def __del__(self) -> None:
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None


_warned: set[str] = set()


class ForkingProvisioner(LocalProvisioner):
    """LocalProvisioner, but a `shard` kernel launch is a fork of the server's template."""

    async def launch_kernel(self, cmd: list[str], **kwargs: Any) -> Any:
        template = shared_template()
        reason = self._refusal(template, cmd, kwargs)
        if reason is None and template is not None:
            env = dict(kwargs.get("env") or os.environ)
            cwd = str(kwargs.get("cwd") or os.getcwd())
            try:
                pid, pidfd = await template.fork(cmd[3:], env, cwd)
            except (TemplateError, OSError) as exc:
                reason = f"the fork template failed ({exc})"
            else:
                self.process = ForkedProcess(template, pid, pidfd)  # pyright: ignore[reportAttributeAccessIssue]
                self.pid = pid
                self.pgid = pid  # the child's own session
                self.cwd = cwd
                return self.connection_info
        reason = reason or "no fork template"
        if reason not in _warned:
            _warned.add(reason)
            self.log.warning("shard: agent kernels spawn instead of forking: %s", reason)
        return await super().launch_kernel(cmd, **kwargs)

    @staticmethod
    def _refusal(
        template: ForkTemplate | None, cmd: list[str], kwargs: dict[str, Any]
    ) -> str | None:
        if template is None or not template.usable():
            return "no fork template"
        if len(cmd) != 5 or cmd[1:4] != ["-m", "shard_kernel", "-f"]:
            return f"the command is not the shard kernelspec's ({cmd[1:4]})"
        if cmd[0] != template.executable:
            return f"another interpreter ({cmd[0]}) than the template's"
        if any(kwargs.get(k) is not None for k in ("stdin", "stdout", "stderr")):
            return "the launch redirects the kernel's standard streams"
        env = dict(kwargs.get("env") or os.environ)
        if import_key(env) != template.key:
            return "the kernel's PYTHON* / VIRTUAL_ENV / LD_* variables differ from the template's"
        return None
