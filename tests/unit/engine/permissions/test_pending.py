"""PendingRequests: compare-and-set resolution, from the loop or from another thread."""

from __future__ import annotations

import asyncio
import threading

import pytest

from shard_core.contracts import PermissionAnswer, PermissionPrompt
from shard_core.engine.permissions import PendingRequests


def prompt(request_id: str = "perm-1") -> PermissionPrompt:
    return PermissionPrompt(
        request_id=request_id,
        tool="bash",
        input={"command": "git push"},
        prompt="Allow bash: git push",
        suggested_rule=None,
        read_only=False,
    )


async def test_first_answer_wins_and_later_ones_hear_who_decided() -> None:
    pending = PendingRequests()
    pending.open(prompt())

    first = pending.answer("perm-1", PermissionAnswer("deny", "alice"), "interactive")
    second = pending.answer("perm-1", PermissionAnswer("allow", "bob"), "interactive")

    assert (first.accepted, second.accepted) == (True, False)
    assert second.message == "already decided by alice (deny)"
    assert await pending.wait("perm-1", 1) == PermissionAnswer("deny", "alice")
    assert pending.prompts() == []


async def test_an_answer_from_another_thread_wakes_the_waiter() -> None:
    pending = PendingRequests()
    pending.open(prompt())
    waiter = asyncio.create_task(pending.wait("perm-1", None))
    await asyncio.sleep(0)

    thread = threading.Thread(
        target=pending.answer, args=("perm-1", PermissionAnswer("allow", "comm"), "interactive")
    )
    thread.start()
    answer = await asyncio.wait_for(waiter, 5)
    thread.join()

    assert answer == PermissionAnswer("allow", "comm")


async def test_wait_times_out_with_none_and_the_question_stays_open() -> None:
    pending = PendingRequests()
    pending.open(prompt())

    assert await pending.wait("perm-1", 0.01) is None
    assert [p.request_id for p in pending.prompts()] == ["perm-1"]


async def test_withdraw_is_a_deny_from_abort() -> None:
    pending = PendingRequests()
    pending.open(prompt())

    assert pending.withdraw("perm-1", "turn interrupted").accepted
    assert pending.decided("perm-1") == PermissionAnswer(
        "deny", "abort", source="abort", reason="turn interrupted"
    )


async def test_ids_are_unique_and_old_decisions_are_forgotten_in_order() -> None:
    pending = PendingRequests(remember=2)
    for n in range(3):
        pending.open(prompt(f"perm-{n}"))
        pending.resolve(f"perm-{n}", PermissionAnswer("allow", "x"))

    with pytest.raises(ValueError, match="already exists"):
        pending.open(prompt("perm-2"))
    assert pending.decided("perm-0") is None
    assert pending.decided("perm-2") is not None
