"""The server's side of the fork template (gateway/forked.py): a fork's reply that another
caller took off the socket first still ends the fork's wait.

During a burst of creates, each launch asks `usable()`, which drains the socket; when it took
the reply a pending `fork()` was waiting for, the socket was no longer readable and that fork
waited out REPLY_TIMEOUT (30 s; bench/pool_start.py's bursts of 5 showed a last answer of 31.7 s).
The template's end of the socket is the test's own (no process, no timing: loop turns only).
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading

from shard_kernel.gateway.forked import ForkTemplate


def _template() -> tuple[ForkTemplate, socket.socket]:
    """A ForkTemplate whose template end is the returned socket, set up as __init__ does."""
    template = ForkTemplate.__new__(ForkTemplate)
    template.sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    template.sock.setblocking(False)
    template.ready = template.gone = False
    template.exits, template._replies, template._next = {}, {}, 0
    template._lock, template._forking, template._wakers = threading.Lock(), asyncio.Lock(), []
    return template, theirs


async def _turns(count: int) -> None:
    for _ in range(count):
        await asyncio.sleep(0)


async def test_a_reply_another_caller_drained_ends_the_wait_for_it() -> None:
    template, theirs = _template()
    try:
        waiting = asyncio.create_task(
            template._until(lambda: 1 in template._replies, 60.0, "to a fork")
        )
        await _turns(3)  # the fork now waits for the socket to be readable
        assert not waiting.done()
        theirs.send(json.dumps({"id": 1, "pid": 4242}).encode())
        template.drain()  # another launch's usable() takes the reply first
        await _turns(20)
        assert waiting.done()  # before: it waited out its 60 s
        assert template._replies[1][0]["pid"] == 4242
        assert template._wakers == []
    finally:
        template.sock.close()
        theirs.close()
