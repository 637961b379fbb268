"""Helpers shared by the gate tests (fixtures are in conftest.py)."""

from __future__ import annotations

import asyncio

from shard_core.engine.permissions import RuleGate, RuleSet
from shard_core.types import PermissionDetails
from shard_kernel.notebook_tools import declare_notebook_tools

READ_ONLY = frozenset({"read", "grep", "find", "ls"})

# The notebook tools (L4) declare their own permission shapes; an agent learns them when their
# extension registers them, these tests as the gateway and `shard rules check` do.
declare_notebook_tools()


def rules(
    allow: tuple[str, ...] = (), deny: tuple[str, ...] = (), ask: tuple[str, ...] = ()
) -> RuleSet:
    return RuleSet.parse("test", allow=allow, ask=ask, deny=deny)


class Log:
    """A stand-in session log: `record` appends; `fail` makes it raise."""

    def __init__(self) -> None:
        self.entries: list[PermissionDetails] = []
        self.fail: Exception | None = None

    async def record(self, details: PermissionDetails) -> None:
        if self.fail is not None:
            raise self.fail
        self.entries.append(details)


async def asked(gate: RuleGate) -> str:
    """The id of the first open question, once the gate has asked it."""
    for _ in range(1000):
        prompts = gate.pending.prompts()
        if prompts:
            return prompts[0].request_id
        await asyncio.sleep(0)
    raise AssertionError("the gate never asked")
