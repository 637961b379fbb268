"""After a tool ran: tell subscribers which files it changed, and follow with what a language
server found wrong in them.

A tool that is not read-only and reports `details["path"]` on success changed that file (write,
edit, notebook tools). A shell command changed whatever it changed: its `file_mutated` carries
the time it started instead of paths. The event goes out before the tool's `tool_result`, so a
subscriber that re-indexes synchronously (the code index) is current when the result is shown.

The result never waits for a language server (a cold pyright takes seconds): the check runs as
a session follow-up, and the new errors it finds are injected context (`context_injected`,
kind `output`, under DIAGNOSTICS_HEADING), carried by the next request, whether that is the
same turn's next step or the next turn.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable
from typing import TYPE_CHECKING

from shard_core.contracts.codeintel import DiagnosingProvider
from shard_core.protocol.events import FileMutatedEvent
from shard_core.types import ToolCallBlock, ToolResult

if TYPE_CHECKING:  # the session owns the step runner that calls this
    from shard_core.engine.session import AgentSession

log = logging.getLogger("shard.engine")


def changed_paths(result: ToolResult, cwd: str) -> list[str]:
    path = result.details.get("path")
    if result.is_error or not isinstance(path, str) or not path:
        return []
    return [os.path.normpath(os.path.join(cwd, path))]


def is_shell_run(result: ToolResult) -> bool:
    return isinstance(result.details.get("command"), str) and "exit_code" in result.details


def announce_changes(
    session: AgentSession, turn_id: str, call: ToolCallBlock, result: ToolResult, since: float
) -> None:
    """Emit `file_mutated` for a tool that changed files, and start the diagnosing code
    intelligence's check of them (if there is one) as a follow-up of the session."""
    tool = session.tools.get(call.name)
    if tool is None or tool.read_only:
        return
    paths = changed_paths(result, str(session.config.cwd))
    shell = not paths and is_shell_run(result)
    if not paths and not shell:
        return
    session.events.emit(
        FileMutatedEvent,
        turn_id=turn_id,
        tool_call_id=call.id,
        tool=call.name,
        paths=paths,
        since=since if shell else None,
    )
    index = session.config.code_index
    if paths and isinstance(index, DiagnosingProvider):
        # asked now (the provider may count the check as in flight), awaited beside the turn
        session.follow_up(diagnose_later(session, index.diagnose(paths), call, paths))


async def diagnose_later(
    session: AgentSession, check: Awaitable[list[str]], call: ToolCallBlock, paths: list[str]
) -> None:
    """The errors the change introduced, as context for the next request (none: nothing)."""
    try:
        lines = await check
    except Exception:  # diagnostics are extra information: they never fail anything
        log.warning("diagnostics after %s failed", call.name, exc_info=True)
        return
    if lines:
        cwd = str(session.config.cwd)
        shown = ", ".join(os.path.relpath(p, cwd) if p.startswith(cwd) else p for p in paths)
        session.inject("\n".join(lines), "output", f"diagnostics after {call.name} {shown}")
