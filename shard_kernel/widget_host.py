"""WidgetHost: each permission prompt of a running cell, also as a clickable PermissionDialog.

Hosting widgets in a wrapper kernel (JUPYTER-NOTES, point 6): the `comm` package must point at
ipykernel's CommManager before anywidget is imported, the widget's mimebundle is published as
display_data under the cell's parent header, and the kernel keeps `comm_manager` so
comm_info_request lists the dialogs (widget restore on page reload).

A click is one more answer to `gate.respond` (role interactive, the widget's client id); the first
answer wins wherever it comes from, and the dialog then shows who decided. The dialog counts as a
responder only for a cell sent by a client that speaks the widget protocol (it asked for
`jupyter.widget` comm info or opened the widget control comm, as JupyterLab, Notebook 7 and VS
Code do on connect): a batch run through nbclient, which never does, stays headless.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

import ipykernel.ipkernel  # noqa: F401  (before anywidget: `comm` → ipykernel's CommManager)

from shard_core.protocol import (
    CommandReply,
    PermissionRequestEvent,
    PermissionResolvedEvent,
    PermissionResponseCommand,
)
from shard_core.protocol.events import Event
from shard_kernel.cell_output import permission_bundle, permission_display_id

if TYPE_CHECKING:
    from shard_kernel.agent_host import AgentHost
    from shard_widgets import ControllerResult, PermissionDialog

WIDGET_TARGET = "jupyter.widget"
WIDGET_CONTROL_TARGET = "jupyter.widget.control"
WIDGET_VIEW_MIME = "application/vnd.jupyter.widget-view+json"
KEEP_RESOLVED = 256
"""Resolved dialogs stay open (closing a widget's comm removes it from the page) up to this many."""

Handler = Callable[..., Coroutine[Any, Any, None]]


class WidgetHost:
    def __init__(
        self,
        kernel: AgentHost,
        comm_manager: Any,
        shell_handlers: dict[str, Handler],
        keep: int = KEEP_RESOLVED,
    ) -> None:
        self.kernel = kernel
        self.dialogs: dict[str, PermissionDialog] = {}
        self._resolved: deque[PermissionDialog] = deque()
        self._keep = keep
        self._widget_sessions: set[str] = set()
        self._cell_session: str | None = None
        comm_manager.register_target(WIDGET_CONTROL_TARGET, self._on_control_open)
        comm_info = shell_handlers["comm_info_request"]
        shell_handlers["comm_info_request"] = self._watching_comm_info(comm_info)

    # ------------------------------------------------------------ who speaks widgets

    def _note(self, msg: dict[str, Any]) -> None:
        session = msg.get("header", {}).get("session")
        if session:
            self._widget_sessions.add(session)

    def _watching_comm_info(self, handler: Handler) -> Handler:
        async def comm_info_request(stream: Any, ident: Any, parent: dict[str, Any]) -> None:
            if parent["content"].get("target_name") in (WIDGET_TARGET, None):
                self._note(parent)
            await handler(stream, ident, parent)

        return comm_info_request

    def _on_control_open(self, comm: Any, msg: dict[str, Any]) -> None:
        import ipywidgets  # imported when first needed: the kernel starts without it

        self._note(msg)
        ipywidgets.Widget.handle_control_comm_opened(comm, msg)

    def has_responder(self) -> bool:
        """A dialog is open in a cell whose sender renders widgets."""
        return bool(self.dialogs) and self._cell_session in self._widget_sessions

    # ------------------------------------------------------------ events

    def handle(self, event: Event, parent: dict[str, Any] | None) -> None:
        """`parent` is the running cell's execute_request, None outside a cell."""
        try:
            if isinstance(event, PermissionRequestEvent) and parent is not None:
                self._open(event, parent)
            elif isinstance(event, PermissionResolvedEvent):
                self._close(event)
        except Exception:  # a dialog that fails is one responder less, never a failed turn
            self.kernel.log.exception("the permission dialog widget failed")

    def _open(self, event: PermissionRequestEvent, parent: dict[str, Any]) -> None:
        from shard_widgets import PermissionDialog

        self._cell_session = parent.get("header", {}).get("session")
        dialog = PermissionDialog(event, on_answer=self._answer)
        self.dialogs[event.request_id] = dialog
        view, metadata = _widget_view(dialog)
        # Replace the prompt's own output: a front end that renders widgets shows the dialog,
        # any other (a saved notebook, nbconvert) keeps the prompt's MIME data and text.
        data = {WIDGET_VIEW_MIME: view, **permission_bundle(event)}
        transient = {"display_id": permission_display_id(event.request_id)}
        self.kernel.send_output(
            "update_display_data",
            {"data": data, "metadata": metadata, "transient": transient},
            parent,
        )

    def _close(self, event: PermissionResolvedEvent) -> None:
        dialog = self.dialogs.pop(event.request_id, None)
        if dialog is None:
            return
        dialog.resolve(event)
        self._resolved.append(dialog)
        while len(self._resolved) > self._keep:
            _dispose(self._resolved.popleft())

    # ------------------------------------------------------------ clicks

    def _answer(self, command: PermissionResponseCommand) -> ControllerResult:
        """Answers on the kernel's loop, where the gate's futures live; a message handled on
        another thread is handed over to it."""

        def respond() -> CommandReply:
            agent = self.kernel.agent
            if agent is None:
                return CommandReply(command=command.type, ok=False, message="no agent is running")
            result = agent.gate.respond(
                command.request_id,
                command.decision,
                command.client_id,
                "interactive",
                reason=command.reason,
                rule=command.rule,
                label=command.label,
                scope=command.scope,
            )
            return CommandReply(command=command.type, ok=result.accepted, message=result.message)

        loop = self.kernel.loop
        if loop is None or _running_loop() is loop:
            return respond()

        async def on_kernel_loop() -> CommandReply:
            return respond()

        return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(on_kernel_loop(), loop))


def _widget_view(dialog: PermissionDialog) -> tuple[dict[str, Any], dict[str, Any]]:
    """The widget-view part of its mimebundle and the metadata (anywidget returns both)."""
    bundle: Any = dialog._repr_mimebundle_()
    data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
    if not isinstance(data, dict) or WIDGET_VIEW_MIME not in data:
        raise TypeError("the permission dialog has no widget view to display")
    return data[WIDGET_VIEW_MIME], metadata


def _dispose(dialog: PermissionDialog) -> None:
    """Close the dialog's comm and its Layout's (every DOMWidget opens one)."""
    dialog.layout.close()
    dialog.close()


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
