"""Parsing many files at once: worker processes that read, hash, parse and query files and send
back plain rows (never tree objects), in the order given. A few files parse in-process.

tree-sitter holds the GIL through a parse, so threads do not help; processes do. A worker is a
fresh interpreter running this module (`python -m …code_index.pool`), fed chunks of jobs on
stdin and answering on stdout (marshal frames): nothing is forked from a kernel that runs
threads, no server process outlives a batch, and the parent's `__main__` is never re-run (as
multiprocessing's `spawn` does for a script without a main guard). A pool lives for one batch;
`close()` ends its workers from any thread.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import selectors
import struct
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any, cast

from shard_core.capabilities.code_index.parse import SymbolsRow, parse_source, symbols_row

POOL_MIN_FILES = 200
"""fewer files to parse than this stay in-process: starting workers costs about as much"""
MAX_WORKERS = 8
CHUNK = 16
DEPTH = 3
"""chunks queued at each worker (a chunk's jobs are a few KB: far below a pipe's buffer)"""
_HEADER = struct.Struct("<I")
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[3])

Job = tuple[str, str, str, int, int, str]
"""(workspace-relative key, absolute path, language, mtime_ns, size, known digest or "")"""
Result = tuple[str, int, int, str, SymbolsRow | None]
"""(key, mtime_ns, size, digest, symbols; None when the content hashes to the known digest)"""


class ParseWorkersError(RuntimeError):
    """A batch could not finish in workers: the pool was closed, or a worker failed."""


def parse_job(job: Job) -> Result | None:
    """One file read, hashed and (if its content changed) parsed; None if it cannot be read."""
    rel, path, language, mtime_ns, size, known = job
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    digest = hashlib.blake2b(data, digest_size=16).hexdigest()
    if digest == known:
        return rel, mtime_ns, size, digest, None
    return rel, mtime_ns, size, digest, symbols_row(parse_source(language, data))


def default_workers() -> int:
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # (not Linux)
        cores = os.cpu_count() or 1
    return max(1, min(MAX_WORKERS, cores))


class ParsePool:
    """Runs batches of jobs: in worker processes when the batch is big, else in-process."""

    def __init__(self, workers: int | None = None, min_files: int = POOL_MIN_FILES) -> None:
        self.workers = default_workers() if workers is None else workers
        self.min_files = min_files
        self.started = 0
        """worker processes started, over all batches"""
        self._procs: list[subprocess.Popen[bytes]] = []
        self._lock = threading.Lock()
        self._closed = False

    def run(self, jobs: Sequence[Job]) -> Iterator[Result | None]:
        """Each job's result, in the jobs' order; ParseWorkersError if the pool is closed
        meanwhile or a worker fails (what came before it was already yielded)."""
        if self.workers < 2 or len(jobs) < self.min_files:
            yield from map(parse_job, jobs)
            return
        chunks = [list(jobs[i : i + CHUNK]) for i in range(0, len(jobs), CHUNK)]
        procs = self._start(min(self.workers, len(chunks)))
        try:
            yield from self._drive(procs, chunks)
        finally:
            self._stop(procs)

    @property
    def closed(self) -> bool:
        """Whether `close` was called (a batch it stopped is not a failure)."""
        return self._closed

    def pids(self) -> list[int]:
        """The worker processes of the batch in flight (none between batches)."""
        with self._lock:
            return [p.pid for p in self._procs]

    def close(self) -> None:
        """Refuse new batches and end the one in flight: its workers have exited when this
        returns."""
        with self._lock:
            self._closed = True
            procs = list(self._procs)
        self._stop(procs, owner=False)

    def _drive(
        self, procs: list[subprocess.Popen[bytes]], chunks: list[list[Job]]
    ) -> Iterator[Result | None]:
        """Keep DEPTH chunks queued at every worker (so none waits for this thread to be
        scheduled under load); yield the results in chunk order."""
        pending = iter(enumerate(chunks))
        queued: list[list[int]] = [[] for _ in procs]  # per worker: chunk numbers, in order
        done: dict[int, list[Result | None]] = {}
        with selectors.DefaultSelector() as selector:
            for i, proc in enumerate(procs):
                selector.register(cast(IO[bytes], proc.stdout), selectors.EVENT_READ, i)
                for _ in range(DEPTH):
                    self._feed(proc, pending, queued[i])
            for number in range(len(chunks)):
                while number not in done:
                    for key, _ in selector.select():
                        i = cast(int, key.data)
                        done[queued[i].pop(0)] = self._receive(procs[i])
                        self._feed(procs[i], pending, queued[i])
                yield from done.pop(number)

    def _feed(
        self,
        proc: subprocess.Popen[bytes],
        pending: Iterator[tuple[int, list[Job]]],
        queued: list[int],
    ) -> None:
        item = next(pending, None)
        if item is None:
            return
        queued.append(item[0])
        try:
            _write(cast(IO[bytes], proc.stdin), item[1])
        except OSError as error:
            raise self._failure(proc) from error

    def _receive(self, proc: subprocess.Popen[bytes]) -> list[Result | None]:
        frame = _read(cast(IO[bytes], proc.stdout))
        if not isinstance(frame, list):
            raise self._failure(proc) if frame is None else ParseWorkersError(str(frame))
        return cast(list[Result | None], frame)

    def _failure(self, proc: subprocess.Popen[bytes]) -> ParseWorkersError:
        if self._closed:
            return ParseWorkersError("the index was closed")
        try:  # (its pipes close as it exits: its status follows at once)
            status: int | None = proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            status = None
        return ParseWorkersError(f"a parse worker exited ({status})")

    def _start(self, count: int) -> list[subprocess.Popen[bytes]]:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [_PACKAGE_ROOT, env.get("PYTHONPATH")]))
        command = [sys.executable, "-m", __name__]
        with self._lock:
            if self._closed:
                raise ParseWorkersError("the index was closed")
            procs = [
                subprocess.Popen(
                    command,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    env=env,
                )
                for _ in range(count)
            ]
            self._procs += procs
            self.started += count
        return procs

    def _stop(self, procs: list[subprocess.Popen[bytes]], *, owner: bool = True) -> None:
        """End the workers; their output pipes are closed by the batch's own thread (`owner`),
        which may be reading them now: it sees their end."""
        for proc in procs:
            if proc.stdin is not None and not proc.stdin.closed:
                with contextlib.suppress(OSError):  # (a worker ends at end of input)
                    proc.stdin.close()
            if proc.poll() is None and self._closed:
                proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            if owner and proc.stdout is not None:
                proc.stdout.close()
        with self._lock:
            self._procs = [p for p in self._procs if p not in procs]


def _write(out: IO[bytes], value: Any) -> None:
    data = marshal.dumps(value)
    out.write(_HEADER.pack(len(data)) + data)
    out.flush()


def _read(source: IO[bytes]) -> Any:
    """The next frame, or None at end of input."""
    head = source.read(_HEADER.size)
    if len(head) < _HEADER.size:
        return None
    (size,) = _HEADER.unpack(head)
    data = source.read(size)
    return marshal.loads(data) if len(data) == size else None


def serve(source: IO[bytes], out: IO[bytes]) -> None:
    """A worker: each chunk of jobs in, its results out, until end of input. A failure is
    sent back as its message (a str frame) and ends the worker."""
    while (chunk := _read(source)) is not None:
        try:
            results = [parse_job(tuple(job)) for job in chunk]
        except Exception as error:  # (sent to the parent, which reports it)
            _write(out, f"parsing failed: {type(error).__name__}: {error}")
            return
        _write(out, results)


if __name__ == "__main__":
    serve(sys.stdin.buffer, sys.stdout.buffer)
