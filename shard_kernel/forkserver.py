"""The fork template: one process per server that has imported what an agent kernel imports
before its first message, and forks agent kernels from itself on request
(`shard_kernel/gateway/forked.py` starts it and asks; `python -m shard_kernel.forkserver FD`).

It talks over one end of a `socketpair` (AF_UNIX, SOCK_SEQPACKET: one message per datagram,
file descriptors alongside) that the server opened and handed down; there is no listening socket.
Messages are JSON objects:

    server -> template  {"id": n, "argv": [...], "env": {...}, "cwd": "/abs"}   fork a kernel
                        {"retire": true}   fork no more; exit once no kernel of ours is left
    template -> server  {"ready": pid}                      the imports are done
                        {"id": n, "pid": p} + a pidfd       the kernel forked
                        {"id": n, "error": "..."}           it did not (the server spawns instead)
                        {"exited": p, "code": c}            a kernel ended (c as Popen.returncode)

The template creates no thread, zmq context or event loop (a fork copies only the forking
thread: a second one, or a lock it held, would be lost or stuck in the child), and checks
`threading.active_count() == 1` before each fork. The child makes itself what `python -m
shard_kernel -f <conn>` started by the server's launcher would be: its own session, no inherited
fd but stdio, the signal handlers a fresh interpreter has, the request's environment (replaced,
not merged), folder and import path (`warm_start.bind_process`, as a pool kernel's bind), then
runs `shard_kernel` as `__main__` and exits with its code. Its `JPY_PARENT_PID` is the template's
pid, its real parent: the template exits when its socket closes (the server is gone), and the
kernel's parent poller then ends the kernel, as a spawned kernel ends when its server does.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import json
import os
import select
import signal
import socket
import sys
import threading
from pathlib import Path
from typing import Any

PRELOAD = (
    "shard_kernel.__main__",
    "shard_kernel.gateway_reach",
    "shard_kernel.state_home",
    "shard_kernel.iopub_hold",
    "shard_kernel.kernel",
    "ipykernel.kernelapp",
)
"""What `python -m shard_kernel` imports before its first message, with WARM_IMPORTS."""
MAX_MESSAGE = 1 << 20
ROOM = 4096
"""Bytes of command line the template is started with (a filler argument it then blanks), so a
forked kernel's `/proc/<pid>/cmdline` can read `<python> -m shard_kernel -f <conn>` as a spawned
one's does (ps, and what finds kernels by their command line)."""


def set_cmdline(argv: list[str]) -> bool:
    """Write `argv` over this process's command line (NUL-padded); False if it does not fit."""
    import ctypes

    fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
    start, end = int(fields[45]), int(fields[46])  # arg_start, arg_end (stat fields 48, 49)
    data = b"\0".join(a.encode() for a in argv) + b"\0"
    if not start or len(data) > end - start:
        return False
    ctypes.memmove(start, data.ljust(end - start, b"\0"), end - start)
    return True


def send(sock: socket.socket, message: dict[str, Any], fds: list[int] | None = None) -> None:
    data = json.dumps(message).encode()
    if fds:
        socket.send_fds(sock, [data], fds)
    else:
        sock.send(data)


class Template:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        # what a fresh interpreter has (SIGINT -> KeyboardInterrupt, SIGPIPE ignored, ...)
        self.handlers = {s: signal.getsignal(s) for s in signal.valid_signals()}
        self.children: set[int] = set()
        self.retired = False
        self.wake_r, self.wake_w = os.pipe()

    def preload(self) -> None:
        from shard_kernel.warm_start import WARM_IMPORTS

        for name in (*PRELOAD, *WARM_IMPORTS):
            importlib.import_module(name)

    def serve(self) -> int:
        os.set_blocking(self.wake_w, False)
        signal.set_wakeup_fd(self.wake_w, warn_on_full_buffer=False)
        signal.signal(signal.SIGCHLD, lambda *_: None)  # wakes select through the pipe
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server's ^C is the server's
        self.preload()
        send(self.sock, {"ready": os.getpid()})
        while True:
            self.reap()
            if self.retired and not self.children:
                return 0
            readable, _, _ = select.select([self.sock, self.wake_r], [], [])
            if self.wake_r in readable:
                os.read(self.wake_r, 4096)
            if self.sock in readable:
                data = self.sock.recv(MAX_MESSAGE)
                if not data:
                    return 0  # the server closed its end or is gone
                self.handle(json.loads(data))

    def reap(self) -> None:
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                self.children.clear()
                return
            if pid == 0:
                return
            self.children.discard(pid)
            code = os.waitstatus_to_exitcode(status)
            with contextlib.suppress(OSError):  # the server is gone
                send(self.sock, {"exited": pid, "code": code})

    def handle(self, request: dict[str, Any]) -> None:
        if request.get("retire"):
            self.retired = True
            return
        rid = request.get("id")
        try:
            if self.retired:
                raise RuntimeError("the template is retired")
            if threading.active_count() != 1:
                raise RuntimeError(f"{threading.active_count()} threads in the template")
            argv, env, cwd = parse(request)
        except (RuntimeError, ValueError) as exc:
            send(self.sock, {"id": rid, "error": str(exc)})
            return
        pid = os.fork()
        if pid == 0:
            self.child(argv, env, cwd)  # never returns
        self.children.add(pid)
        pidfd = os.pidfd_open(pid)
        try:
            send(self.sock, {"id": rid, "pid": pid}, [pidfd])
        finally:
            os.close(pidfd)

    def child(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        code = 1
        try:
            os.setsid()
            signal.set_wakeup_fd(-1)
            for signum, handler in self.handlers.items():
                if handler is not None:
                    with contextlib.suppress(OSError, ValueError):  # SIGKILL, SIGSTOP
                        signal.signal(signum, handler)
            close_inherited_fds()
            code = run_kernel(argv, env, cwd)
        except SystemExit as exc:
            code = exit_code(exc.code)
        except BaseException:
            import traceback

            traceback.print_exc()
            code = 1
        finally:
            os._exit(code)


def parse(request: dict[str, Any]) -> tuple[list[str], dict[str, str], Path]:
    from shard_kernel.warm_start import BindError, parse_binding

    argv = request.get("argv")
    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
        raise ValueError("argv must be a list of strings")
    try:
        env, cwd = parse_binding({"env": request.get("env"), "cwd": request.get("cwd")})
    except BindError as exc:
        raise ValueError(str(exc)) from exc
    return argv, env, cwd


def close_inherited_fds() -> None:
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd > 2:
            with contextlib.suppress(OSError):  # the listing's own fd, closed already
                os.close(fd)


def run_kernel(argv: list[str], env: dict[str, str], cwd: Path) -> int:
    """In the child: become `python -m shard_kernel <argv>` and run it to its end."""
    from shard_kernel.warm_start import bind_process

    env = {**env, "JPY_PARENT_PID": str(os.getppid())}  # the template: see the module's doc
    bind_process(env, cwd)
    from shard_kernel import __main__ as kernel_main

    sys.argv = [str(kernel_main.__file__), *argv]  # as `python -m shard_kernel <argv>` has it
    sys.orig_argv = [sys.executable, "-m", "shard_kernel", *argv]
    set_cmdline(sys.orig_argv)
    code = 0
    try:
        kernel_main.main()
    except SystemExit as exc:
        code = exit_code(exc.code)
    atexit._run_exitfuncs()  # as the interpreter's exit would (ipykernel stops its threads)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    return code


def exit_code(code: Any) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    sock = socket.socket(fileno=int(args[0]))
    set_cmdline([sys.executable, "-m", "shard_kernel.forkserver", args[0]])  # the filler out
    return Template(sock).serve()


if __name__ == "__main__":
    code = main()
    sys.stderr.flush()
    os._exit(code)  # nothing to finalize: skip tearing down a thousand modules
