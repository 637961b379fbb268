"""Asks route to a person: a child's permission request goes to its parent's people.

A child has no clients of its own but the coordinator. When its parent has an interactive
client, the coordinator follows the child as `interactive` (so the child's gate waits for an
answer instead of deciding headless at once), and relays each permission request to the
parent's kernel as a question every client of the parent sees ("Juniper asks to run
`pytest`"); the first answer goes back to the child. With nobody on the parent, the coordinator
is an observer and the child's headless policy decides at once; a relayed question nobody
answers leaves the child's own timeout to fall back to that policy.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

from shard_kernel.gateway.jobs.channel import AgentChannel, ChannelError
from shard_kernel.gateway.manifest import AgentManifest
from shard_kernel.gateway.registry import AgentRegistry

ALLOW, ALWAYS, DENY = "Allow once", "Always allow", "Deny"
DECISIONS = {ALLOW: "allow", ALWAYS: "allow_always", DENY: "deny"}
SLACK_SECONDS = 10.0


async def parent_has_person(registry: AgentRegistry, parent_id: str) -> bool:
    """Whether a person (an interactive client) is attached to the parent right now."""
    if registry.kernel_id(parent_id) is None:
        return False
    try:
        info = await registry.info(parent_id)
    except Exception:
        return False
    return info.clients_by_role.interactive > 0


async def relay_ask(
    registry: AgentRegistry,
    parent: AgentManifest,
    alias: str,
    child: AgentChannel,
    request: dict[str, Any],
    log: logging.Logger,
) -> None:
    """Put the child's `request` (a permission_request event) to the parent's people and
    answer the child with the first decision; nothing is sent when nobody answers."""
    kernel_id = registry.kernel_id(parent.id)
    if kernel_id is None:
        return
    prompt = str(request.get("prompt") or f"use {request.get('tool')}")
    title = f"{alias} asks: {prompt}"
    message = f"Subagent {alias} ({request.get('agent_id')}) of this agent wants to use " + str(
        request.get("tool")
    )
    upstream = AgentChannel(registry.km, kernel_id, f"{alias} (subagent ask)")
    try:
        await upstream.open()
        reply = await upstream.command(
            {"type": "relay_ask", "title": title[:200], "message": message,
             "options": [ALLOW, ALWAYS, DENY]},
            seconds=parent.permission_timeout + SLACK_SECONDS,
        )  # fmt: skip
    except (ChannelError, TimeoutError) as exc:
        log.info("shard: %s's ask could not reach its parent: %s", alias, exc)
        return
    finally:
        with contextlib.suppress(Exception):
            await upstream.close()
    decision = DECISIONS.get(str((reply.get("data") or {}).get("value")))
    if decision is None:
        return  # nobody answered: the child's own timeout falls back to its headless policy
    with contextlib.suppress(ChannelError, TimeoutError):
        await child.command(
            {"type": "permission_response", "request_id": request.get("request_id"),
             "decision": decision, "client_id": child.comm_id,
             "label": f"a person on {parent.name}"},
        )  # fmt: skip
