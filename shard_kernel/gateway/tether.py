"""The first process of an agent's server terminal: runs the agent's (sandboxed) command with
the agent's environment, and ends it when the agent's process ends.

    python tether.py OWNER_PID OWNER_START STATUS_FILE ENV_JSON -- ARGV...

jupyter_server starts it on the terminal's pty with the server's own environment (its token
among it); the command gets ENV_JSON's environment instead, nothing of the server's. The
owner is the agent kernel that asked for the terminal, named by pid and start time (so a
reused pid is not mistaken for it); the tether watches it through a pidfd and, when it ends
(a SIGKILLed kernel runs no disposer), hangs up the command's process group, then kills it.
SIGHUP or SIGTERM (jupyter_server's DELETE) does the same. The command's exit status is
written to STATUS_FILE for the agent. Standard library only: it runs by path, outside any
package.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import sys
import time

GRACE = 1.0
IGNORED = (signal.SIGINT, signal.SIGQUIT, signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU)
"""typed at the terminal they reach the whole foreground group: they are the command's"""


def start_time(pid: int) -> str:
    """Field 22 of /proc/PID/stat: when the process started, in clock ticks since boot."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[19]
    except OSError:
        return ""


def main(args: list[str]) -> int:
    if len(args) < 6 or args[4] != "--":
        print("usage: tether.py OWNER_PID OWNER_START STATUS_FILE ENV_JSON -- ARGV...")
        return 2
    owner, started, status_file, env = int(args[0]), args[1], args[2], json.loads(args[3])
    command = args[5:]
    try:
        owner_fd = os.pidfd_open(owner)
    except OSError:
        owner_fd = -1
    if owner_fd < 0 or start_time(owner) != started:
        print("shard: the agent that opened this terminal is not running on this machine")
        return 1
    for sig in IGNORED:
        signal.signal(sig, signal.SIG_IGN)
    child = os.fork()
    if child == 0:
        for sig in IGNORED:
            signal.signal(sig, signal.SIG_DFL)
        try:
            os.execvpe(command[0], command, env)
        except OSError as exc:
            print(f"shard: cannot start {command[0]}: {exc}", flush=True)
        os._exit(127)
    status, hung_up = watch(owner_fd, child)
    with contextlib.suppress(OSError), open(status_file, "w") as handle:
        handle.write(str(status))
    if hung_up:  # what ignored the hangup in this group goes with the tether
        os.killpg(os.getpgrp(), signal.SIGKILL)
    return status if status >= 0 else 128 - status


def watch(owner_fd: int, child: int) -> tuple[int, bool]:
    """Wait for the child to exit, or for the owner to end or a hangup (then the terminal's
    processes are ended first): the child's status (negative: its signal), and whether it was
    ended here."""
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    for sig in (signal.SIGHUP, signal.SIGTERM, signal.SIGCHLD):
        signal.signal(sig, lambda *_: None)
    child_fd = os.pidfd_open(child)
    poll = select.poll()
    for fd in (owner_fd, child_fd, wake_read):
        poll.register(fd, select.POLLIN)
    while True:
        ready = {fd for fd, _ in poll.poll()}
        if child_fd in ready:
            return _status(os.waitpid(child, 0)[1]), False
        if owner_fd in ready:
            return end(child), True
        drained = os.read(wake_read, 64)
        if {signal.SIGHUP, signal.SIGTERM} & set(drained):
            return end(child), True


def end(child: int) -> int:
    """Hang up everything on this terminal, then kill what is left after GRACE."""
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    groups = {os.getpgrp(), child}
    with contextlib.suppress(OSError):
        groups.add(os.tcgetpgrp(0))
    _signal(groups, signal.SIGHUP)
    deadline = time.monotonic() + GRACE
    while time.monotonic() < deadline:
        pid, status = os.waitpid(child, os.WNOHANG)
        if pid:
            _signal(groups - {os.getpgrp()}, signal.SIGKILL)
            return _status(status)
        time.sleep(0.02)
    _signal(groups - {os.getpgrp()}, signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.kill(child, signal.SIGKILL)
    return _status(os.waitpid(child, 0)[1])


def _signal(groups: set[int], sig: int) -> None:
    for group in groups:
        with contextlib.suppress(OSError):
            os.killpg(group, sig)


def _status(status: int) -> int:
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
