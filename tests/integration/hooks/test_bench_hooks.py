"""bench/hooks.py still runs with tiny counts: each kind's calls measured, and the hooks it
times really ran (the bench stops on a hook that did not), and the process floors beside them.
No timing is asserted."""

from __future__ import annotations

from bench import hooks
from shard_core.tools.sandbox import probe_bwrap


async def test_the_hooks_bench_runs() -> None:
    found = await hooks.measure(2, 1)
    floors = hooks.FLOORS if probe_bwrap().bwrap else hooks.FLOORS[1:]
    measured = {kind: len(samples) for kind, samples in found.items() if samples}
    assert measured == dict.fromkeys((*hooks.KINDS, *floors), 2)
    assert [row[0] for row in hooks.rows(found)] == [*hooks.KINDS, *floors]
