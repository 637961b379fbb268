"""BackgroundTasks: long commands the agent process owns past the tool call that started them.

A task is one `bash{background: true}` command in its own process group (and the same sandbox
as any bash call), with its output written straight to a log file beside the session, so it
keeps running while no turn runs and never waits on the agent to drain a pipe. A turn's end or
abort leaves it alone; `close()` (the extension's disposer, run at kernel or agent shutdown)
ends every group. When one finishes by itself, `notify` (the session's steer) tells the agent.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

TaskState = Literal["running", "completed", "failed", "stopped", "timed_out"]

PAGE_BYTES = 20_000
"""The most output one task_output call returns."""
MAX_LOG_BYTES = 64 * 1024 * 1024
"""A task writing more than this is stopped (a runaway `yes` must not fill the disk)."""
MAX_RUNNING = 16
NOTE_TAIL_CHARS = 600
WATCH_SECONDS = 0.5


@dataclass
class BackgroundTask:
    """One task: what runs, where its output goes, and how it ended."""

    id: str
    command: str
    log: Path
    pid: int
    sandbox: str
    started_at: float = field(default_factory=time.time)
    ended_at: float | None = None
    state: TaskState = "running"
    exit_code: int | None = None
    reason: str = ""
    """why it was stopped (task_stop, shutdown, output cap, timeout), when it was"""
    notes: list[str] = field(default_factory=list[str])
    """what the sandbox moved away once it ended (protected files it created)"""

    @property
    def running(self) -> bool:
        return self.state == "running"

    def duration(self) -> float:
        return (self.ended_at or time.time()) - self.started_at

    def size(self) -> int:
        with contextlib.suppress(OSError):
            return self.log.stat().st_size
        return 0

    def summary(self) -> str:
        """One line a model or a person reads: state, exit code, time, command."""
        code = "" if self.exit_code is None else f", exit code {self.exit_code}"
        why = f" ({self.reason})" if self.reason else ""
        took = f"{self.duration():.1f}s"
        return f"{self.id} {self.state}{why}{code} after {took}: {self.command}"


@dataclass(frozen=True)
class OutputPage:
    text: str
    start: int
    next: int
    size: int

    @property
    def more(self) -> bool:
        return self.next < self.size


class BackgroundTasks:
    """The agent process's background tasks, by id (`task-…`)."""

    def __init__(
        self,
        folder: Path,
        *,
        kill_grace: float = 2.0,
        max_running: int = MAX_RUNNING,
        max_log_bytes: int = MAX_LOG_BYTES,
    ) -> None:
        self.folder = folder
        self.kill_grace = kill_grace
        self.max_running = max_running
        self.max_log_bytes = max_log_bytes
        self.notify: Callable[[str], object] | None = None
        """called with a note when a task ends by itself (the session binds its steer)"""
        self._tasks: dict[str, BackgroundTask] = {}
        self._procs: dict[str, asyncio.subprocess.Process] = {}
        self._watchers: dict[str, asyncio.Task[None]] = {}
        self._ending: dict[str, asyncio.Event] = {}
        self._settle: dict[str, Callable[[], list[str]]] = {}
        self._closed = False

    # ------------------------------------------------------------ queries

    def get(self, task_id: str) -> BackgroundTask | None:
        return self._tasks.get(task_id.strip())

    def all(self) -> list[BackgroundTask]:
        return list(self._tasks.values())

    def read(self, task: BackgroundTask, since: int | None, limit: int = PAGE_BYTES) -> OutputPage:
        """Up to `limit` bytes of output from byte `since`, or the last `limit` bytes when
        `since` is None; cut at a character boundary so pages join exactly."""
        size = task.size()
        start = max(0, size - limit) if since is None else min(max(0, since), size)
        try:
            with task.log.open("rb") as f:
                f.seek(start)
                chunk = f.read(min(limit, size - start))
        except OSError:
            chunk = b""
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        text = decoder.decode(chunk, final=not task.running and start + len(chunk) >= size)
        pending = len(decoder.getstate()[0])
        return OutputPage(text=text, start=start, next=start + len(chunk) - pending, size=size)

    # ------------------------------------------------------------ lifecycle

    async def start(
        self,
        argv: Sequence[str],
        *,
        command: str,
        cwd: Path,
        env: Mapping[str, str],
        sandbox: str,
        seconds: float | None = None,
        settle: Callable[[], list[str]] | None = None,
    ) -> BackgroundTask | str:
        """Start `argv` as a task, or say why not. Returns as soon as the process exists.
        `settle` runs once it has ended (the sandbox's `Launch.settle`)."""
        if self._closed:
            return "background tasks are closed: the agent is shutting down"
        running = sum(t.running for t in self._tasks.values())
        if running >= self.max_running:
            return (
                f"{running} background tasks are already running (the limit is "
                f"{self.max_running}); stop one with task_stop first"
            )
        task_id = f"task-{uuid.uuid4().hex[:8]}"
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        log = self.folder / f"{task_id}.log"
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv, cwd=cwd, env=dict(env), start_new_session=True,
                stdin=asyncio.subprocess.DEVNULL, stdout=fd, stderr=fd,
            )  # fmt: skip
        finally:
            os.close(fd)
        task = BackgroundTask(task_id, command, log, proc.pid, sandbox)
        self._tasks[task_id] = task
        self._procs[task_id] = proc
        if settle is not None:
            self._settle[task_id] = settle
        self._watchers[task_id] = asyncio.create_task(self._watch(task, proc, seconds))
        return task

    async def stop(self, task_id: str, reason: str = "stopped by task_stop") -> BackgroundTask:
        """End a running task's process group (SIGTERM, then SIGKILL after the grace)."""
        task = self._tasks[task_id]
        if task.running:
            await self._end(task, "stopped", reason)
        return task

    async def close(self) -> None:
        """Stop every running task: the disposer, at kernel or agent shutdown."""
        self._closed = True
        running = [t for t in self._tasks.values() if t.running]
        await asyncio.gather(*(self._end(t, "stopped", "the agent shut down") for t in running))

    # ------------------------------------------------------------ internals

    async def _watch(
        self, task: BackgroundTask, proc: asyncio.subprocess.Process, seconds: float | None
    ) -> None:
        """Wait for the shell to exit, stopping it on its deadline or an oversized log."""
        deadline = None if seconds is None else time.monotonic() + seconds
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), WATCH_SECONDS)
                break
            if deadline is not None and time.monotonic() >= deadline:
                await self._end(task, "timed_out", f"timed out after {seconds:g}s")
                return
            if task.size() > self.max_log_bytes:
                limit = f"{self.max_log_bytes:,} bytes"
                await self._end(task, "stopped", f"its output passed {limit}")
                return
        if not task.running or task.id in self._ending:
            return
        # The shell is gone; whatever it left behind in its group goes with it.
        _signal_group(task.pid, signal.SIGKILL)
        task.exit_code = proc.returncode
        task.state = "completed" if proc.returncode == 0 else "failed"
        task.ended_at = time.time()
        self._settled(task)
        self._notify(task)

    async def _end(self, task: BackgroundTask, state: TaskState, reason: str) -> None:
        """Kill the task's group; its state changes only once the process is gone, and a
        second caller (close() during a task_stop) waits for the first one's kill."""
        ending = self._ending.get(task.id)
        if ending is not None:
            await ending.wait()
            return
        self._ending[task.id] = done = asyncio.Event()
        proc = self._procs[task.id]
        try:
            _signal_group(task.pid, signal.SIGTERM)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(proc.wait()), self.kill_grace)
            _signal_group(task.pid, signal.SIGKILL)
            await proc.wait()
            task.exit_code = proc.returncode
            task.state, task.reason, task.ended_at = state, reason, time.time()
            self._settled(task)
        finally:
            done.set()
        watcher = self._watchers.get(task.id)
        if watcher is not None and watcher is not asyncio.current_task():
            watcher.cancel()
        if state == "timed_out":
            self._notify(task)

    def _settled(self, task: BackgroundTask) -> None:
        settle = self._settle.pop(task.id, None)
        if settle is not None:
            task.notes = settle()

    def _notify(self, task: BackgroundTask) -> None:
        if self.notify is None:
            return
        tail = self.read(task, None, NOTE_TAIL_CHARS * 2).text.rstrip()[-NOTE_TAIL_CHARS:]
        shown = f"\nlast output:\n{tail}" if tail else "\n(no output)"
        shown += "".join(f"\nshard: {note}" for note in task.notes)
        self.notify(
            f"[background task {task.summary()}]{shown}\n"
            f"(all of it: task_output with id {task.id}; log {task.log})"
        )


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)
