"""One per-agent command from the server itself (e.g. REST `PATCH` of an agent's title): a
short-lived kernel client attaches on the `shard` comm as an interactive client, sends the
command, waits for its reply, and closes the comm. The kernel treats it like any other client,
so the change is logged and every attached client sees the status that follows.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

from jupyter_core.utils import ensure_async

from shard_core.engine.session_store import SessionStore, find_session
from shard_core.engine.titles import clean_title
from shard_core.protocol.commands import TITLE_MAX
from shard_core.types import CheckpointEntry, TitleCheckpoint
from shard_kernel.gateway.validation import BadRequestError

COMM_TARGET = "shard"
CLIENT_ID = "gateway-rest"


class KernelCommandError(RuntimeError):
    """The kernel did not answer the command in time, or refused it (the message says why)."""


async def send_command(
    kernel_manager: Any, kernel_id: str, command: dict[str, Any], within: float = 20.0
) -> dict[str, Any]:
    """Send `command` to the agent kernel; returns its `reply` (ok or not)."""
    client = kernel_manager.get_kernel(kernel_id).client()
    client.start_channels()
    comm_id = f"gateway-{uuid.uuid4().hex[:12]}"
    try:
        attach = {"role": "interactive", "client_id": CLIENT_ID, "label": "REST API"}
        _send(client, "comm_open", {"comm_id": comm_id, "target_name": COMM_TARGET, "data": attach})
        await _reply(client, comm_id, "snapshot", within)
        _send(client, "comm_msg", {"comm_id": comm_id, "data": command})
        return await _reply(client, comm_id, "reply", within)
    finally:
        _send(client, "comm_close", {"comm_id": comm_id, "data": {}})
        client.stop_channels()


def _send(client: Any, kind: str, content: dict[str, Any]) -> None:
    client.shell_channel.send(client.session.msg(kind, content))


async def _reply(client: Any, comm_id: str, kind: str, within: float) -> dict[str, Any]:
    deadline = time.monotonic() + within
    while (left := deadline - time.monotonic()) > 0:
        try:
            msg = await ensure_async(client.get_iopub_msg(timeout=min(left, 1.0)))
        except Exception:  # queue.Empty from the client: nothing yet
            await asyncio.sleep(0)
            continue
        content = msg.get("content", {})
        data = content.get("data")
        if (
            msg.get("msg_type") == "comm_msg"
            and content.get("comm_id") == comm_id
            and isinstance(data, dict)
            and data.get("type") == kind
        ):
            return data
    raise KernelCommandError(f"the agent's kernel did not answer in {within:g} s")


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
