"""After a tool ran: tell subscribers which files it changed, and add what a language server
found wrong in them to its result.

A tool that is not read-only and reports `details["path"]` on success changed that file (write,
edit, notebook tools). A shell command changed whatever it changed: its `file_mutated` carries
the time it started instead of paths. The event goes out before the tool's `tool_result`, so a
subscriber that re-indexes synchronously (the code index) is current when the result is shown.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING

from shard_core.contracts.codeintel import DiagnosingProvider
from shard_core.protocol.events import FileMutatedEvent
from shard_core.types import TextBlock, ToolCallBlock, ToolResult
from shard_core.types.render import TextDescriptor

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


async def announce_changes(
    session: AgentSession, turn_id: str, call: ToolCallBlock, result: ToolResult, since: float
) -> ToolResult:
    """Emit `file_mutated` for a tool that changed files; returns the result, with the new
    errors a diagnosing code intelligence reports for those files added."""
    tool = session.tools.get(call.name)
    if tool is None or tool.read_only:
        return result
    paths = changed_paths(result, str(session.config.cwd))
    shell = not paths and is_shell_run(result)
    if not paths and not shell:
        return result
    session.events.emit(
        FileMutatedEvent,
        turn_id=turn_id,
        tool_call_id=call.id,
        tool=call.name,
        paths=paths,
        since=since if shell else None,
    )
    index = session.config.code_index
    if not paths or not isinstance(index, DiagnosingProvider):
        return result
    try:
        lines = await index.diagnose(paths)
    except Exception:  # diagnostics are extra information: they never fail the tool
        log.warning("diagnostics after %s failed", call.name, exc_info=True)
        return result
    if not lines:
        return result
    text = "\n".join(lines)
    return result.model_copy(
        update={
            "content": [*result.content, TextBlock(text=text)],
            "render": [*result.render, TextDescriptor(text=text, format="code")],
        }
    )
