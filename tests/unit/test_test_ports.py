"""The suite's own helpers: each pytest-xdist worker takes ports from its own range, below the
ephemeral range the OS hands out, so two workers never start servers on one port."""

from __future__ import annotations

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
