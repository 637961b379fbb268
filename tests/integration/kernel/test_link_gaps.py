"""The jupyter_client protocol clients survive a seq gap: real `shard` kernels, real IOPub
messages, some of them dropped on their way to one client (a lossy hop between the kernel
client's IOPub channel and the client's AgentLink). Each lossy client syncs the gap and ends
with the same transcript (the logged events, in seq order) as a client that lost nothing.

- the coordinator's AgentChannel, beside a gap-free AgentChannel on the same kernel;
- a REST command's client (`kernel_command.send_command`), beside a gap-free AgentChannel;
- `shard demo`'s runner, against the kernel's own event log (the gap-free record)."""

from __future__ import annotations

import asyncio
import io
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.manager import AsyncKernelManager, KernelManager
from jupyter_client.session import Session

from shard_kernel.demo.runner import DemoRunner
from shard_kernel.gateway.jobs.channel import AgentChannel
from shard_kernel.gateway.kernel_command import send_command
from tests.integration.kernel.conftest import write_script
from tests.integration.lossy import DROP, STEPS, Lossy, logged


class OneKernel:
    """What the gateway's clients ask of a kernel manager: `get_kernel(id).client()`; each
    client gets its own session (two clients sharing one session id share one ZMQ identity,
    and the kernel's ROUTER socket then loses one of them)."""

    def __init__(self, km: AsyncKernelManager) -> None:
        self.km = km

    def get_kernel(self, kernel_id: str) -> OneKernel:
        return self

    def client(self) -> Any:
        return self.km.client(session=Session(key=self.km.session.key))


def kernel_env(jupyter_dirs: Path, workspace: Path) -> dict[str, str]:
    (workspace / "a.txt").write_text("hello\n")
    env = dict(os.environ)
    env["KERNEL_SHARD_AGENT_ID"] = "agent-gaps"
    env["KERNEL_SHARD_CWD"] = str(workspace)
    env["KERNEL_SHARD_MODEL"] = f"scripted/{write_script(jupyter_dirs, STEPS)}"
    return env


@pytest.fixture
def async_kernel(jupyter_dirs: Path, workspace: Path) -> Iterator[OneKernel]:
    km = AsyncKernelManager(kernel_name="shard")
    loop = asyncio.new_event_loop()
    loop.run_until_complete(km.start_kernel(env=kernel_env(jupyter_dirs, workspace)))
    try:
        yield OneKernel(km)
    finally:
        loop.run_until_complete(km.shutdown_kernel(now=True))
        loop.close()


async def until_turn_end(channel: AgentChannel, into: list[dict[str, Any]]) -> None:
    async for event in channel.events():
        into.append(event)
        if event.get("type") == "turn_end":
            return


def test_the_coordinators_channel_syncs_a_gap(async_kernel: OneKernel) -> None:
    async def run() -> tuple[list[dict[str, Any]], list[dict[str, Any]], Lossy, int]:
        reference = AgentChannel(async_kernel, "k", "reference")
        lossy_channel = AgentChannel(async_kernel, "k", "lossy")
        lossy = Lossy()
        try:
            await reference.open()
            await lossy_channel.open()
            client = lossy_channel._client  # pyright: ignore[reportPrivateUsage]
            client.get_iopub_msg = lossy.wrap_async(client.get_iopub_msg)
            seen: list[dict[str, Any]] = []
            seen_lossy: list[dict[str, Any]] = []
            reply = await reference.command({"type": "prompt", "text": "look at a.txt"})
            assert reply["ok"], reply
            await asyncio.wait_for(
                asyncio.gather(
                    until_turn_end(reference, seen), until_turn_end(lossy_channel, seen_lossy)
                ),
                120,
            )
            return seen, seen_lossy, lossy, lossy_channel.link.gaps
        finally:
            await lossy_channel.close()
            await reference.close()

    seen, seen_lossy, lossy, gaps = asyncio.run(run())
    assert sorted(e["type"] for e in lossy.dropped) == sorted(DROP)
    assert gaps >= 1
    first = seen_lossy[0]["seq"]  # it attached after the reference (which saw that status)
    assert logged(seen_lossy) == [x for x in logged(seen) if x[0] >= first]
    assert "turn_start" in [e["type"] for e in seen_lossy]
    assert [e["seq"] for e in seen_lossy] == sorted({e["seq"] for e in seen_lossy})


def test_a_rest_commands_client_syncs_a_gap(
    async_kernel: OneKernel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`relay_ask` waits for a person: while it waits, a turn runs and the REST client's
    stream loses events; the reference (interactive) answers once the turn is over."""
    from jupyter_client.asynchronous.client import AsyncKernelClient

    lossy = Lossy()
    exempt: set[int] = set()
    original = AsyncKernelClient.get_iopub_msg

    async def get_iopub_msg(self: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
        if id(self) in exempt:
            return await original(self, *args, **kwargs)
        return await lossy.wrap_async(lambda: original(self, *args, **kwargs))()

    monkeypatch.setattr(AsyncKernelClient, "get_iopub_msg", get_iopub_msg)

    async def run() -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]:
        reference = AgentChannel(async_kernel, "k", "reference", role="interactive")
        try:
            await reference.open()
            exempt.add(id(reference._client))  # pyright: ignore[reportPrivateUsage]
            seen: list[dict[str, Any]] = []
            seen_rest: list[dict[str, Any]] = []
            ask = {"type": "relay_ask", "title": "May I?", "options": ["yes", "no"]}
            rest = asyncio.ensure_future(
                send_command(async_kernel, "k", ask, within=120, on_events=seen_rest.extend)
            )
            async for event in reference.events():
                seen.append(event)
                if event.get("type") == "ui_request":
                    break
            reply = await reference.command({"type": "prompt", "text": "look at a.txt"})
            assert reply["ok"], reply
            await asyncio.wait_for(until_turn_end(reference, seen), 120)
            request_id = next(e for e in seen if e["type"] == "ui_request")["request_id"]
            answer = {"type": "ui_response", "request_id": request_id, "value": "yes"}
            await reference.command({**answer, "client_id": reference.comm_id})
            result = await asyncio.wait_for(rest, 60)
            return seen, seen_rest, result
        finally:
            await reference.close()

    seen, seen_rest, result = asyncio.run(run())
    assert result["ok"], result
    assert result["data"] == {"value": "yes"}
    assert sorted(e["type"] for e in lossy.dropped) == sorted(DROP)
    last = seen[-1]["seq"]  # the reference stopped reading at the turn's end
    assert [x for x in logged(seen_rest) if x[0] <= last] == logged(seen)
    assert [e["seq"] for e in seen_rest] == sorted({e["seq"] for e in seen_rest})
    assert "turn_end" in [e["type"] for e in seen_rest]


def test_the_demo_runner_syncs_a_gap(jupyter_dirs: Path, workspace: Path) -> None:
    km = KernelManager(kernel_name="shard")
    km.start_kernel(env=kernel_env(jupyter_dirs, workspace))
    kc = km.client()
    shown: list[dict[str, Any]] = []
    try:
        kc.start_channels()
        kc.wait_for_ready(timeout=120)
        lossy = Lossy()
        kc.get_iopub_msg = lossy.wrap_blocking(kc.get_iopub_msg)  # type: ignore[method-assign]
        runner = DemoRunner(io.StringIO(), timeout=120)
        render = runner.render

        def record(event: Any) -> None:
            shown.append(event.model_dump(mode="json"))
            render(event)

        runner.render = record  # type: ignore[assignment]
        status = runner._turn(kc)  # pyright: ignore[reportPrivateUsage]
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    assert status == 0
    assert sorted(e["type"] for e in lossy.dropped) == sorted(DROP)
    log = jupyter_dirs / "shard-home" / "agents" / "agent-gaps" / "events.jsonl"
    record_of_the_agent = [json.loads(line) for line in log.read_text().splitlines() if line]
    first, last = shown[0]["seq"], shown[-1]["seq"]
    expected = [x for x in logged(record_of_the_agent) if first <= x[0] <= last]
    assert logged(shown) == expected
    assert "turn_end" in [e["type"] for e in shown]
