"""bench/hooks.py still runs with tiny counts: each kind's calls measured, and the hooks it
times really ran (the bench stops on a hook that did not). No timing is asserted."""

from __future__ import annotations

from bench import hooks


async def test_the_hooks_bench_runs() -> None:
    found = await hooks.measure(2, 1)
    assert {kind: len(samples) for kind, samples in found.items()} == dict.fromkeys(hooks.KINDS, 2)
    assert [row[0] for row in hooks.rows(found)] == list(hooks.KINDS)
