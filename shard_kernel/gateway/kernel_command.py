"""One per-agent command from the server itself (e.g. REST `PATCH` of an agent's title): a
short-lived kernel client attaches on the `shard` comm as an interactive client, sends the
command, waits for its reply, and closes the comm. The kernel treats it like any other client,
so the change is logged and every attached client sees the status that follows.
"""

from __future__ import annotations

import queue
from collections.abc import Awaitable, Callable
from typing import Any

from jupyter_core.utils import ensure_async

from shard_core.engine.session_store import SessionStore, find_session
from shard_core.engine.titles import clean_title
from shard_core.protocol.commands import TITLE_MAX
from shard_core.protocol.link import AgentLink
from shard_core.types import CheckpointEntry, TitleCheckpoint
from shard_kernel.agent_client import AgentConnection, ClientTransport, LinkError, OnEvents
from shard_kernel.gateway.validation import BadRequestError

CLIENT_ID = "gateway-rest"


class KernelCommandError(RuntimeError):
    """The kernel did not answer the command in time, or refused it (the message says why)."""


async def send_command(
    kernel_manager: Any,
    kernel_id: str,
    command: dict[str, Any],
    within: float = 20.0,
    *,
    on_events: OnEvents | None = None,
) -> dict[str, Any]:
    """Send `command` to the agent kernel; returns its `reply` (ok or not). `on_events` sees
    the agent's events from the attach on (in seq order, gaps synced) while it waits."""
    client = kernel_manager.get_kernel(kernel_id).client()
    client.start_channels()
    link = AgentLink(CLIENT_ID, label="REST API", replay=False, heartbeat=False)
    conn = AgentConnection(
        ClientTransport(client, link, comm_prefix="gateway"), iopub(client), on_events=on_events
    )
    conn.start()
    try:
        await conn.attach(within=within)
        reply = await conn.request(command, within=within)
        return reply.model_dump(mode="json")
    except LinkError as exc:
        raise KernelCommandError(f"the agent's kernel: {exc}") from None
    finally:
        await conn.aclose()
        client.stop_channels()


def iopub(client: Any, timeout: float | None = 1.0) -> Callable[[], Awaitable[dict[str, Any]]]:
    """A jupyter_client kernel client's next IOPub message, waited for (blocking or async);
    `timeout`: how long one wait for it lasts (None: the client's own)."""

    async def recv() -> dict[str, Any]:
        while True:
            try:
                if timeout is None:
                    return await ensure_async(client.get_iopub_msg())
                return await ensure_async(client.get_iopub_msg(timeout=timeout))
            except queue.Empty:  # nothing yet
                continue

    return recv


def parse_title(body: dict[str, Any]) -> str:
    """The title of a PATCH body, or BadRequestError saying what to send."""
    unknown = sorted(set(body) - {"title"})
    if unknown:
        raise BadRequestError(f"unknown field {unknown[0]!r}: only title can be changed")
    title = body.get("title")
    if not isinstance(title, str) or not clean_title(title):
        raise BadRequestError('send {"title": "…"} with at least one visible character')
    if len(title) > TITLE_MAX:
        raise BadRequestError(f"the title is {len(title)} characters: at most {TITLE_MAX}")
    return title


async def set_title(registry: Any, agent_id: str, title: str) -> str:
    """Name the agent's session: through its kernel when it runs (logged there, every client
    sees the status), else straight into its session log (no kernel holds it then)."""
    kernel_id = registry.kernel_id(agent_id)
    if kernel_id is not None:
        reply = await send_command(registry.km, kernel_id, {"type": "set_title", "title": title})
        if not reply.get("ok"):
            raise KernelCommandError(str(reply.get("message") or "the agent refused the title"))
        return str(reply.get("message") or title)
    folder = registry.store.folder(agent_id)
    pointer = folder / "current-session"
    if not pointer.is_file():
        raise KernelCommandError("the agent has no session yet: start it (attach) first")
    session_id = pointer.read_text(encoding="utf-8").strip()
    store = SessionStore.open(find_session(folder.parent.parent, session_id))
    try:
        text = clean_title(title)
        store.append(CheckpointEntry, TitleCheckpoint(title=text, source="user"))
        store.sync()
    finally:
        store.close()
    return text
