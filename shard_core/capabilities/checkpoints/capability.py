"""The checkpoints capability, installed through the ExtensionApi like any extension.

    checkpoints = CheckpointsCapability(cwd, home=shard_home, store=lambda: session_store)
    await host.install("shard.checkpoints", checkpoints)
    checkpoints.bind(events=agent.events, running=lambda: agent.session.running)

It subscribes to `tool_call` and `tool_result` (prior content kept before a tool that changes
files runs; a `files` checkpoint logged after its result), to `turn_start`/`turn_end` (what
background tasks changed meanwhile; the store's pending writes flushed), tells the surface once
when a file was too big to keep or a workspace scan stopped at its bound (`api.ui.notify`), and
registers `/rewind`, `/changes` and `/revert`. A rewind goes to every attached client as a
`rewind` event. Settings (`config.json` section `checkpoints`): `enabled` (default true),
`max_file_bytes`, `max_scan_files`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from shard_core.capabilities.checkpoints.rewind import RewindResult
from shard_core.capabilities.checkpoints.service import Checkpoints, blob_store
from shard_core.capabilities.checkpoints.store import DEFAULT_MAX_FILE_BYTES
from shard_core.capabilities.checkpoints.timeline import RewindError
from shard_core.capabilities.checkpoints.tracker import Tracker
from shard_core.capabilities.checkpoints.workspace import DEFAULT_MAX_SCAN_FILES, Workspace
from shard_core.contracts import ExtensionApi
from shard_core.engine.events import EventStream
from shard_core.engine.session_store import SessionStore
from shard_core.protocol.events import (
    RewindEvent,
    ToolCallEvent,
    ToolResultEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from shard_core.types.errors import ConfigError

REWIND_HELP = (
    "rewind files and/or the conversation to before a turn (`/rewind` lists them; "
    "`/rewind TURN [--code|--conversation|--both] [--force|--keep]`, `/rewind undo`)"
)
CHANGES_HELP = "what a turn (`/changes TURN`) or the session changed: per-file and per-cell diffs"
REVERT_HELP = (
    "put back one file, hunk or notebook cell (`/revert PATH [--turn N] [--hunk K|--cell ID]`)"
)

REWIND_HINT = "[TURN [--code|--conversation|--both] [--force|--keep] | undo]"
REVERT_HINT = "PATH [--turn N] [--hunk K | --cell ID]"


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and value > 0 else default


class CheckpointsCapability:
    def __init__(
        self,
        root: Path,
        *,
        home: Path,
        store: Callable[[], SessionStore | None],
        tasks_running: Callable[[], bool] = lambda: False,
    ) -> None:
        self.root = root.resolve()
        self.home = home
        self._store = store
        self._tasks_running = tasks_running
        self._events: EventStream | None = None
        self._running: Callable[[], bool] = lambda: False
        self.tracker: Tracker | None = None
        self.workspace: Workspace | None = None
        self._api: ExtensionApi | None = None
        self._notifying: set[asyncio.Task[None]] = set()

    def __call__(self, api: ExtensionApi) -> None:
        settings = api.settings("checkpoints")
        if settings.get("enabled") is False:
            return
        blobs = blob_store(self.home, _int(settings.get("max_file_bytes"), DEFAULT_MAX_FILE_BYTES))
        self.workspace = Workspace(
            self.root, blobs, max_files=_int(settings.get("max_scan_files"), DEFAULT_MAX_SCAN_FILES)
        )
        self.tracker = Tracker(self.workspace, self._store, tasks_running=self._tasks_running)
        self._api = api
        api.on("tool_call", self._tool_call)
        api.on("tool_result", self._tool_result)
        api.on("turn_start", self._turn_boundary)
        api.on("turn_end", self._turn_boundary)
        api.register_command(
            "rewind", REWIND_HELP, self._command(lambda c, a: c.command(a)), hint=REWIND_HINT
        )
        api.register_command(
            "changes", CHANGES_HELP, self._command(lambda c, a: c.changes_command(a)), hint="[TURN]"
        )
        api.register_command(
            "revert", REVERT_HELP, self._command(lambda c, a: c.revert_command(a)), hint=REVERT_HINT
        )

    def bind(self, *, events: EventStream, running: Callable[[], bool]) -> None:
        """The agent's event stream (a rewind is announced on it) and whether a turn runs."""
        self._events = events
        self._running = running

    def _tool_call(self, event: ToolCallEvent) -> None:
        if self.tracker is not None:
            self.tracker.tool_call(event)

    def _turn_boundary(self, event: TurnStartEvent | TurnEndEvent) -> None:
        if self.tracker is not None:
            self.tracker.catch_up_tasks(event.turn_id)
            self.tracker.workspace.blobs.flush()  # a finished turn's blobs are on disk
            self._tell(self.tracker.take_notices())

    def _tool_result(self, event: ToolResultEvent) -> None:
        if self.tracker is not None:
            self.tracker.tool_result(event)
            self._tell(self.tracker.take_notices())

    def _tell(self, notices: list[str]) -> None:
        """Each notice once, to whoever the surface shows notifications to."""
        if not notices or self._api is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        for message in notices:
            task = loop.create_task(self._api.ui.notify("Checkpoints", message))
            self._notifying.add(task)
            task.add_done_callback(self._notifying.discard)

    # ------------------------------------------------------------ the service

    def checkpoints(self) -> Checkpoints:
        store = self._store()
        if store is None or self.workspace is None:
            raise RewindError("checkpoints are off for this agent (config `checkpoints.enabled`)")
        return Checkpoints(store, self.workspace, running=self._running, announce=self.announce)

    def announce(self, result: RewindResult, text: str) -> None:
        if self._events is None or result.entry_id is None:
            return
        self._events.emit(
            RewindEvent,
            entry_id=result.entry_id,
            to_entry_id=result.to_entry_id,
            scope=result.scope,
            restored=result.restored,
            kept=result.kept,
            failed=result.failed,
            leaf_id=result.leaf_id,
            message=text,
        )

    def _command(self, run: Callable[[Checkpoints, list[str]], str]) -> Callable[[list[str]], str]:
        def handler(args: list[str]) -> str:
            try:
                return run(self.checkpoints(), args)
            except RewindError as exc:
                raise ConfigError(str(exc)) from None

        return handler
