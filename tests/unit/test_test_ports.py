"""The suite's own helpers: each pytest-xdist worker takes ports from its own range, below the
ephemeral range the OS hands out, and a port one process claimed is not handed to another (two
pytest runs on one machine), so two servers are never started on one port."""

from __future__ import annotations

import fcntl
import os
import socket

from tests.fixtures import ports


def test_worker_ranges_are_disjoint_and_below_the_ephemeral_range() -> None:
    starts = [ports.BASE + ports.worker_index(f"gw{n}") * ports.SPAN for n in range(8)]
    assert len(set(starts)) == 8
    assert all(s + ports.SPAN <= 32768 for s in starts)
    # outside xdist: a slice by process id, so runs side by side rarely share one
    assert ports.worker_index("") == os.getpid() % ports.WORKERS
    assert ports.worker_index("master") == os.getpid() % ports.WORKERS


def test_free_port_skips_a_port_something_holds() -> None:
    first = ports.free_port()
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", first + 1))
        holder.listen()
        second = ports.free_port()
    assert second != first + 1
    assert ports.bindable(second)


def test_free_port_skips_a_port_another_process_claimed() -> None:
    first = ports.free_port()
    others = [first + n for n in range(1, 6)]
    ports.CLAIMS.mkdir(parents=True, exist_ok=True)
    handles = [(ports.CLAIMS / f"{port}.lock").open("w") for port in others]
    try:
        for handle in handles:  # another open file: a lock this process does not hold
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        second = ports.free_port()
    finally:
        for handle in handles:
            handle.close()
    assert second not in others
    assert second != first
    assert ports.claim(second)
