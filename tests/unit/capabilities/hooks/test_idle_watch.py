"""IdleWatch's waits: one timer for all the waits under way, ended by the last one's end; a
wait fires once; 0 seconds never arms."""

from __future__ import annotations

import asyncio

from shard_core.capabilities.hooks.idle import PROMPT, IdleWatch

fired: list[str] = []


async def record(message: str) -> None:
    fired.append(message)


async def test_a_wait_arms_and_its_end_cancels() -> None:
    watch = IdleWatch(3600, record)
    watch.wait(PROMPT, "waiting for your input")
    assert watch.armed
    timer = watch._timer  # pyright: ignore[reportPrivateUsage]
    watch.done()
    assert not watch.armed
    assert timer is not None
    assert timer.cancelled()


async def test_waits_overlap_into_one_and_the_latest_message_is_told() -> None:
    fired.clear()
    watch = IdleWatch(3600, record)
    watch.wait("req-1", "waiting for your permission to use bash")
    first = watch._timer  # pyright: ignore[reportPrivateUsage]
    watch.wait("req-2", "waiting for your answer: Which?")
    assert watch._timer is first  # pyright: ignore[reportPrivateUsage]
    watch.done("req-2")
    assert watch.armed  # req-1 is still open
    watch.wait("req-2", "waiting for your answer: Which?")
    watch._due()  # pyright: ignore[reportPrivateUsage]  (the timer's callback)
    await asyncio.sleep(0)
    assert fired == ["waiting for your answer: Which?"]
    watch.wait(PROMPT, "waiting for your input")
    assert not watch.armed  # this wait already fired
    watch.done()
    watch.wait(PROMPT, "waiting for your input")
    assert watch.armed  # a new wait
    watch.close()


async def test_zero_seconds_never_arms() -> None:
    watch = IdleWatch(0, record)
    watch.wait(PROMPT, "waiting for your input")
    assert not watch.armed


def test_no_loop_no_timer() -> None:
    watch = IdleWatch(60, record)
    watch.wait(PROMPT, "waiting for your input")
    assert not watch.armed
