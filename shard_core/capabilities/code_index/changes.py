"""After a tool ran: tell subscribers which files it changed, and follow with what a language
server found wrong in them (the code index's `tool_returned` handler: not the engine's).

A tool that is not read-only and reports `details["path"]` on success changed that file (write,
edit, notebook tools). A shell command changed whatever it changed: its `file_mutated` carries
the time it started instead of paths. The handler runs before the tool's `tool_result` is
logged or shown, so a subscriber that re-indexes synchronously (the code index) is current when
the result is shown.

The result never waits for a language server (a cold pyright takes seconds): the check runs as
a session follow-up, and the new errors it finds are injected context (`context_injected`,
kind `output`, under DIAGNOSTICS_HEADING), carried by the next request, whether that is the
same turn's next step or the next turn.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable

from shard_core.contracts.codeintel import DiagnosingProvider
from shard_core.engine.hook_points import ToolReturned
from shard_core.protocol.events import FileMutatedEvent
from shard_core.types import ToolResult

log = logging.getLogger("shard.code_index")


def changed_paths(result: ToolResult, cwd: str) -> list[str]:
    path = result.details.get("path")
    if result.is_error or not isinstance(path, str) or not path:
        return []
    return [os.path.normpath(os.path.join(cwd, path))]


def is_shell_run(result: ToolResult) -> bool:
    return isinstance(result.details.get("command"), str) and "exit_code" in result.details


def announce_changes(returned: ToolReturned) -> None:
    """Emit `file_mutated` for a tool that changed files, and start the diagnosing code
    intelligence's check of them (if there is one) as a follow-up of the session."""
    if returned.read_only:
        return
    check, result = returned.check, returned.result
    paths = changed_paths(result, check.place.cwd)
    shell = not paths and is_shell_run(result)
    if not paths and not shell:
        return
    returned.emit(
        FileMutatedEvent,
        turn_id=check.place.turn_id,
        tool_call_id=check.call_id,
        tool=check.tool,
        paths=paths,
        since=returned.since if shell else None,
    )
    index = returned.code_index
    if paths and isinstance(index, DiagnosingProvider):
        # asked now (the provider may count the check as in flight), awaited beside the turn
        returned.follow_up(diagnose_later(returned, index.diagnose(paths), paths))


async def diagnose_later(
    returned: ToolReturned, check: Awaitable[list[str]], paths: list[str]
) -> None:
    """The errors the change introduced, as context for the next request (none: nothing)."""
    tool = returned.check.tool
    try:
        lines = await check
    except Exception:  # diagnostics are extra information: they never fail anything
        log.warning("diagnostics after %s failed", tool, exc_info=True)
        return
    if lines:
        cwd = returned.check.place.cwd
        shown = ", ".join(os.path.relpath(p, cwd) if p.startswith(cwd) else p for p in paths)
        returned.inject("\n".join(lines), "output", f"diagnostics after {tool} {shown}")
