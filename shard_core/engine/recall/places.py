"""Which sessions a recall call reads, found safely, and which of them lie outside the agent's
workspace roots.

A `session:` argument must be a session id as Shard makes them (`s-` + 16 hex digits): never a
path or a pattern. Its log (and each ancestor's) is found under SHARD_HOME and must resolve
there, so a symlink cannot lead out. A session belongs to the workspace recorded in its header
(`cwd`); it is inside when that folder lies inside one of the roots. What lies outside is named
for the permission gate (`RecallTool.reach`), which judges it like a read outside the workspace.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from shard_core.engine.recall.lineage import header_of, lineage_paths
from shard_core.engine.session_store import find_session, is_session_id
from shard_core.types.errors import SessionNotFoundError

EVERY_WORKSPACE = "the sessions of every workspace under SHARD_HOME"


def session_problem(value: object) -> str | None:
    """What is wrong with a `session:` argument, or None for a well-formed id."""
    if isinstance(value, str) and is_session_id(value):
        return None
    shown = repr(value)[:80]
    return (
        'session must be a session id like "s-0123456789abcdef" (as a sessions: "all" result '
        f"names it), not {shown}"
    )


def session_paths(home: Path, session_id: str) -> list[Path]:
    """The lineage of `session_id` under `home`, oldest first; every log must resolve inside."""
    if not is_session_id(session_id):
        raise SessionNotFoundError(f"{session_id!r} is not a session id")
    paths = lineage_paths(find_session(home, session_id))
    real_home = Path(os.path.realpath(home))
    for path in paths:
        if not Path(os.path.realpath(path)).is_relative_to(real_home):
            raise SessionNotFoundError(f"session log {path} leads outside SHARD_HOME")
    return paths


def inside_roots(workspace: str | None, roots: Sequence[Path]) -> bool:
    """Whether a session's recorded workspace lies inside one of the roots (real paths)."""
    if not workspace:
        return False
    real = Path(os.path.realpath(workspace))
    return any(real.is_relative_to(os.path.realpath(root)) for root in roots)


def outside_sessions(paths: Sequence[Path], roots: Sequence[Path]) -> list[str]:
    """How each log of `paths` whose workspace is outside the roots is named to the gate."""
    outside: list[str] = []
    for path in paths:
        header = header_of(path)
        workspace = header.details.cwd if header else None
        if not inside_roots(workspace, roots):
            where = f"of {workspace}" if workspace else "with no recorded workspace"
            outside.append(f"session {path.stem} {where}")
    return outside
