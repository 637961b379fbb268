"""InProcessAgent: an SDK agent on its own event-loop thread, driven from a notebook.

The agent's loop runs in a daemon thread so a `%%shard` cell can return at once while the turn
goes on (clicks on the widget reach the kernel's main thread and are handed over here), and so
`%%shard --wait` can block the cell until the turn ends without stopping the agent.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Coroutine, Sequence
from concurrent.futures import Future
from typing import Any, TypeVar

from shard_core.protocol.commands import CommandReply, RewindCommand
from shard_core.protocol.events import Event, TurnEndEvent
from shard_core.sdk import Agent, create_agent
from shard_core.types import ContextKind, ImageBlock
from shard_kernel.agent_commands import list_commands
from shard_kernel.notebook_tools import NotebookSetup, notebook_extension
from shard_widgets import AgentWidget, Mentions, ShownNotebook

T = TypeVar("T")


class InProcessAgent:
    """One agent, one loop thread, one widget per turn (all sharing the same controller)."""

    def __init__(self, name: str, **options: Any) -> None:
        self.name = name
        self.widgets: list[AgentWidget] = []
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name=f"shard-{name}")
        self._thread.daemon = True
        self._thread.start()
        self._blocked_turns = 0
        self._started: set[asyncio.Future[TurnEndEvent]] = set()
        options.setdefault("has_responder", self._has_responder)
        options.setdefault("extensions", [notebook_extension(NotebookSetup.from_env(os.environ))])
        self.agent: Agent = self.call(create_agent(**options))
        self.agent.events.subscribe(self._fan_out)

    def call(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        return self.submit(coro).result(timeout)

    def submit(self, coro: Coroutine[Any, Any, T]) -> Future[T]:
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    def _fan_out(self, event: Event) -> None:
        for widget in list(self.widgets):
            widget.push(event)

    def widget(self) -> AgentWidget:
        session = self.agent.session
        widget = AgentWidget(
            controller=self,
            status=session.status,
            mode=session.mode,
            modes=sorted(session.modes),
            model=session.provider.model,
            demo=session.config.demo,
            diagnostics=list(session.diagnostics),
        )
        for older in self.widgets:
            older.supersede()
        self.widgets.append(widget)
        return widget

    def _has_responder(self) -> bool:
        """A widget can answer, unless the cell blocks on the turn (`%%shard --wait`, as in an
        nbclient run, where nobody clicks): then the headless policy decides at once."""
        return bool(self.widgets) and self._blocked_turns == 0

    def prompt(
        self, text: str, images: Sequence[ImageBlock] = (), *, blocking: bool = False
    ) -> Future[TurnEndEvent]:
        async def run() -> TurnEndEvent:
            self._blocked_turns += blocking
            try:
                return await self.agent.run(text, images)
            finally:
                self._blocked_turns -= blocking

        return self.submit(run())

    # ------------------------------------------------------------ the widget's composer

    def send_prompt(self, text: str, images: Sequence[ImageBlock]) -> CommandReply:
        """The widget's composer while no turn runs: starts one. The reply waits for the run's
        first step, so a prompt that meets a turn (a goal's next turn chained between two) is
        refused with the session's reason instead of being reported started and dropped."""

        async def start() -> str | None:
            task = asyncio.ensure_future(self.agent.run(text, images))
            self._started.add(task)
            task.add_done_callback(self._started.discard)
            task.add_done_callback(lambda t: t.cancelled() or t.exception())  # retrieved
            await asyncio.sleep(0)  # the task's first step (the session's busy check) runs first
            if task.done() and not task.cancelled() and (error := task.exception()) is not None:
                return str(error)
            return None

        refused = self.call(start(), timeout=10)
        if refused is not None:
            return CommandReply(command="prompt", ok=False, message=refused)
        return CommandReply(command="prompt", ok=True, message="started")

    def mention_contexts(self, text: str, shown: ShownNotebook | None = None) -> Mentions:
        from shard_kernel import widget_mentions  # only when a widget's message has mentions

        ns = widget_mentions.user_namespace()
        return widget_mentions.resolve(
            text, self.agent.session.config.cwd, ns, self.agent.agent_id, shown
        )

    def mention_options(
        self, word: str, shown: ShownNotebook | None = None
    ) -> list[dict[str, str]]:
        from shard_kernel import widget_mentions

        ns = widget_mentions.user_namespace()
        return widget_mentions.options(word, self.agent.session.config.cwd, ns, shown)

    # ------------------------------------------------------------ AgentController

    def respond_permission(
        self,
        request_id: str,
        decision: str,
        *,
        client_id: str,
        rule: str | None,
        reason: str | None,
        label: str | None = None,
    ) -> CommandReply:
        def answer() -> CommandReply:
            result = self.agent.gate.respond(
                request_id,
                decision,
                client_id,
                "interactive",
                reason=reason,
                rule=rule,
                label=label,
            )
            return CommandReply(
                command="permission_response", ok=result.accepted, message=result.message
            )

        return self._on_loop(answer)

    def respond_ui(
        self, request_id: str, value: object, *, client_id: str, label: str | None = None
    ) -> CommandReply:
        return CommandReply(command="ui_response", ok=False, message="no such ui request")

    def abort(self) -> bool:
        return self._on_loop(self.agent.abort)

    def steer(
        self,
        text: str,
        images: Sequence[ImageBlock] = (),
        *,
        steer_id: str | None = None,
        replace: bool = False,
        queue: bool = False,
    ) -> bool:
        """The steer_receipt event says whether a request carried it."""
        self._on_loop(
            lambda: self.agent.steer(text, images, steer_id=steer_id, replace=replace, queue=queue)
        )
        return True

    def inject(
        self, text: str, kind: ContextKind = "note", label: str | None = None
    ) -> CommandReply:
        entry_id = self._on_loop(lambda: self.agent.inject(text, kind, label))
        message = "logged" if entry_id else "waits for the running turn's next request"
        return CommandReply(command="inject", ok=True, message=message, data={"entry_id": entry_id})

    def set_title(self, title: str) -> CommandReply:
        text = self._on_loop(lambda: self.agent.set_title(title))
        return CommandReply(command="set_title", ok=True, message=text)

    def set_mode(self, mode: str) -> bool:
        self._on_loop(lambda: self.agent.set_mode(mode))
        return True

    def run_command(
        self, text: str, *, client_id: str | None = None, label: str | None = None
    ) -> Coroutine[Any, Any, CommandReply]:
        """A `/` command from the widget; every widget shows its `command_output` event."""

        async def run() -> CommandReply:
            event = await self.agent.command(text, client_id=client_id, label=label)
            return CommandReply(
                command="slash", ok=event.ok, message=event.markdown, data={"seq": event.seq}
            )

        async def wait() -> CommandReply:  # on the notebook's loop; the command on the agent's
            return await asyncio.wrap_future(self.submit(run()))

        return wait()

    def list_commands(self) -> CommandReply:
        return self._on_loop(lambda: list_commands(self.agent))

    def rewind(self, command: RewindCommand) -> CommandReply:
        """The widget's "Rewind to here", "Changes" and reverts (the person at the notebook)."""
        from shard_kernel.rewind_command import run_rewind

        return self._on_loop(lambda: run_rewind(self.agent, command, "interactive"))

    def _on_loop(self, fn: Any) -> Any:
        async def run() -> Any:
            return fn()

        return self.call(run(), timeout=10)

    def close(self) -> None:
        try:
            self.call(self.agent.close(), timeout=10)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=5)
            self._loop.close()
