"""Asks route to a person: a child's permission request goes to its nearest interactive ancestor.

A child has no clients of its own but the coordinator. When an agent up its line (its parent,
else the parent's parent, …) has an interactive client, the coordinator follows the child as
`interactive` (so the child's gate waits for an answer instead of deciding headless at once),
and relays each permission request to that ancestor's kernel as a question every client of it
sees ("Juniper asks to run `pytest`"); the first answer goes back to the child. With nobody on
the line, the coordinator is an observer and the child's headless policy decides at once; a
relayed question nobody answers leaves the child's own timeout to fall back to that policy.

The coordinator's own `interactive` channel on an intermediate child (one whose asks it relays
further up) counts in that child's `clients_by_role.interactive`; it is no person, so the walk
subtracts the channels the caller holds on each kernel.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Any

from shard_kernel.gateway.jobs.channel import AgentChannel, ChannelError
from shard_kernel.gateway.manifest import AgentManifest
from shard_kernel.gateway.registry import AgentRegistry

ALLOW, ALWAYS, DENY = "Allow once", "Always allow", "Deny"
DECISIONS = {ALLOW: "allow", ALWAYS: "allow_always", DENY: "deny"}
SLACK_SECONDS = 10.0


MAX_HOPS = 8
"""The most ancestors an ask climbs (nesting is bounded lower; this guards odd manifests)."""


def no_own_channels(_kernel_id: str) -> int:
    return 0


async def nearest_person(
    registry: AgentRegistry,
    agent_id: str | None,
    own: Callable[[str], int] = no_own_channels,
) -> AgentManifest | None:
    """The first agent from `agent_id` up its `parent_agent_id` line with a person (an
    interactive client other than the caller's own, `own(kernel_id)` of them) attached right
    now; None when there is none within MAX_HOPS, at a missing manifest or at a cycle."""
    seen: set[str] = set()
    while agent_id is not None and agent_id not in seen and len(seen) < MAX_HOPS:
        seen.add(agent_id)
        manifest = registry.manifests.get(agent_id)
        if manifest is None:
            return None
        if await _people(registry, agent_id, own) > 0:
            return manifest
        agent_id = manifest.parent_agent_id
    return None


async def _people(registry: AgentRegistry, agent_id: str, own: Callable[[str], int]) -> int:
    kernel_id = registry.kernel_id(agent_id)
    if kernel_id is None:
        return 0
    try:
        info = await registry.info(agent_id)
    except Exception:
        return 0
    return info.clients_by_role.interactive - own(kernel_id)


async def relay_ask(
    registry: AgentRegistry,
    parent: AgentManifest,
    alias: str,
    child: AgentChannel,
    request: dict[str, Any],
    log: logging.Logger,
    via: str | None = None,
) -> None:
    """Put the child's `request` (a permission_request event) to the people of `parent` (its
    nearest interactive ancestor; `via`: the name of its own parent when that is another
    agent) and answer the child with the first decision; nothing is sent when nobody answers."""
    kernel_id = registry.kernel_id(parent.id)
    if kernel_id is None:
        return
    prompt = str(request.get("prompt") or f"use {request.get('tool')}")
    title = f"{alias} asks: {prompt}"
    whose = "this agent" if via is None else f"{via}, a subagent below this agent,"
    message = f"Subagent {alias} ({request.get('agent_id')}) of {whose} wants to use " + str(
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
