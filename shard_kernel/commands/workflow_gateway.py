"""`shard workflow … --gateway`: runs in a gateway (REST), followed on its events.

`run --follow` prints each step's agent as its job moves, asks each `wf.ask` question here
(another client may answer first: the first answer wins and this one says who answered), and
exits with the run's end. A gateway that restarts mid-run is waited for (the run resumes there).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import threading
from pathlib import Path
from typing import Any

from shard_core.protocol.orchestrator import JobUpdatedEvent, WorkflowUpdatedEvent
from shard_kernel.exit_codes import ExitCode
from shard_kernel.remote.events import EventFeed
from shard_kernel.remote.link import (
    GatewayError,
    GatewayLink,
    GatewayUnreachableError,
    connect,
    find_gateway,
)
from shard_kernel.terminal.bridge import picked
from shard_kernel.terminal.escape import terminal_safe

API = "shard/api/workflows"
RECONNECT_SECONDS = 120.0
ENDED = ("completed", "failed", "cancelled")


async def link_of(args: argparse.Namespace) -> GatewayLink:
    return await (connect(args.url, args.token) if args.url else find_gateway())


async def run(args: argparse.Namespace, inputs: dict[str, str]) -> int:
    link = await link_of(args)
    body: dict[str, Any] = {
        "file": str(Path(args.file).expanduser().resolve()),
        "inputs": inputs,
        "cwd": os.getcwd(),
        "permissions": {"allow": args.allow},
    }
    for key in ("model", "max_agents", "deadline"):
        if getattr(args, key) is not None:
            body[key] = getattr(args, key)
    record = await link.request("POST", API, body=body)
    print(f"workflow {record['id']}: running in the gateway at {link.url}", flush=True)
    if not args.follow:
        return ExitCode.OK
    return await Follower(link, record["id"]).run()


async def show(args: argparse.Namespace) -> int:
    link = await link_of(args)
    if args.verb == "list":
        for record in reversed((await link.request("GET", API))["runs"]):
            print(terminal_safe(f"{record['id']}  {record['state']:<9}  {record['file']}"))
        return ExitCode.OK
    if args.verb == "cancel":
        record = await link.request("POST", f"{API}/{args.run}/cancel")
        print(f"workflow {record['id']}: {record['state']}")
        return ExitCode.OK
    record = await link.request("GET", f"{API}/{args.run}")
    print(terminal_safe(f"{record['id']}: {record['state']} ({record['file']}) in {link.url}"))
    if record.get("error"):  # a step's or the workflow's own error: model and tool text
        print(terminal_safe(f"  {record['error']}"))
    for step in record["steps"]:
        said = step["result"].splitlines()[0] if step["result"] else ""
        print(f"  step {step['n']} {step['kind']}: {step['asked'][:70]!r} -> {said[:70]!r}")
    return ExitCode.OK


class Follower:
    """Follow one run to its end on the gateway's events; ask its questions on stdin."""

    def __init__(self, link: GatewayLink, run_id: str) -> None:
        self.link, self.run_id = link, run_id
        self.feed = EventFeed(link)
        self.agent_id: str | None = None
        self._asked: set[str] = set()
        self._jobs: dict[str, str] = {}
        self._lines: asyncio.Queue[str | None] = asyncio.Queue()
        self._reader: threading.Thread | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def run(self) -> int:
        await self._connect()
        record = await self._record()
        try:
            while True:
                end = self._on_run(record)
                if end is not None:
                    return end
                record = await self._next_run()
        finally:
            await self.feed.close()

    async def _connect(self) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + RECONNECT_SECONDS
        while True:
            try:
                await self.feed.connect()
                return
            except GatewayError:
                if loop.time() > deadline:
                    raise
                await asyncio.sleep(1.0)

    async def _record(self) -> dict[str, Any]:
        """The run now; a gateway that went away (between the events and this) is waited for."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + RECONNECT_SECONDS
        while True:
            try:
                return await self.link.request("GET", f"{API}/{self.run_id}")
            except GatewayUnreachableError:
                if loop.time() > deadline:
                    raise
                await asyncio.sleep(1.0)
                await self._connect()

    async def _next_run(self) -> dict[str, Any]:
        """The run as the next event about it (or one of its steps' jobs) shows it."""
        while True:
            try:
                event = await self.feed.next_event(reconnect=False)
            except GatewayError:
                self._say("the gateway went away; waiting for it to come back")
                await self._connect()
                return await self._record()
            if isinstance(event, WorkflowUpdatedEvent) and event.run_id == self.run_id:
                return event.run
            if isinstance(event, JobUpdatedEvent) and event.parent_agent_id == self.agent_id:
                self._on_job(event)

    def _on_run(self, record: dict[str, Any]) -> int | None:
        self.agent_id = record.get("agent_id")
        state = record["state"]
        if state in ENDED:
            full = f": {record['error']}" if record.get("error") else ""
            print(terminal_safe(f"workflow {self.run_id}: {state}{full}"), flush=True)
            return ExitCode.OK if state == "completed" else ExitCode.FAILED
        pending = record.get("pending")
        if pending and pending["request_id"] not in self._asked:
            self._asked.add(pending["request_id"])
            task = asyncio.ensure_future(self._ask(pending))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return None

    def _on_job(self, event: JobUpdatedEvent) -> None:
        for run in event.job.get("runs", []):
            said = f"{run['alias']} {run['state']}"
            if self._jobs.get(run["id"]) != said:
                self._jobs[run["id"]] = said
                reason = f" ({run['reason']})" if run.get("reason") else ""
                self._say(f"  {said}{reason}")

    async def _ask(self, pending: dict[str, Any]) -> None:
        """Ask until the answer is valid or someone else answered."""
        choices: list[str] = pending["choices"]
        kind = "numbers, comma-separated" if pending["multi"] else "a number"
        other = ", or your own words" if pending["allow_other"] else ""
        lines = [f"? {pending['question']}", *(f"  {n}. {c}" for n, c in enumerate(choices, 1))]
        print(terminal_safe("\n".join(lines)), flush=True)
        while True:
            sys.stdout.write(f"  answer ({kind}{other}): ")
            sys.stdout.flush()
            line = await self._line()
            if line is None:
                return  # stdin closed: the question is left to the other clients
            values = picked(line, choices, pending["multi"])
            path = f"{API}/{self.run_id}/answer"
            body = {"request_id": pending["request_id"], "value": values, "label": "terminal"}
            try:
                await self.link.request("POST", path, body=body)
                return
            except GatewayError as exc:
                self._say(str(exc))
                if "HTTP 409" in str(exc):
                    return

    async def _line(self) -> str | None:
        if self._reader is None:  # a daemon thread: a pending read never holds the exit
            loop = asyncio.get_running_loop()

            def read() -> None:
                try:
                    for line in sys.stdin:
                        loop.call_soon_threadsafe(self._lines.put_nowait, line.strip())
                    loop.call_soon_threadsafe(self._lines.put_nowait, None)
                except RuntimeError:  # the loop closed: the run ended
                    return

            self._reader = threading.Thread(target=read, daemon=True)
            self._reader.start()
        return await self._lines.get()

    def _say(self, text: str) -> None:
        print(terminal_safe(text), flush=True)
