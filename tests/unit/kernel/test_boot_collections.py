"""The kernel's boot runs with fewer garbage collections and ends with Python's thresholds back
and the boot's objects frozen (shard_kernel/warm_start.py; `__main__` and `ShardKernel._boot`)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from shard_kernel.warm_start import BOOT_GC_THRESHOLD, boot_collections, settle_collections


@pytest.fixture
def python_gc() -> Iterator[tuple[int, int, int]]:
    before = gc.get_threshold()
    try:
        yield before
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


def test_a_boot_collects_less_often_then_python_s_thresholds_come_back(
    python_gc: tuple[int, int, int],
) -> None:
    boot_collections()
    assert gc.get_threshold() == BOOT_GC_THRESHOLD
    assert BOOT_GC_THRESHOLD[0] > python_gc[0]
    settle_collections()
    assert gc.get_threshold() == python_gc
    assert gc.get_freeze_count() > 0  # what the boot made is kept out of later collections
