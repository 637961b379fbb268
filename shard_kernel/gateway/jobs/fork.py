"""A forked child (`context: "fork"`): it starts from its parent's conversation up to the
parent's last completed turn (Shard's fork: a session whose lineage points into the parent's
log), not from nothing.

The fork point is the entry before the prompt of the parent's newest turn (the one whose tool
call launches the child, still running). It is recorded in both logs: the child's header
names the parent session and entry (its lineage); the parent's `subagent_launch` result names
them too (the job's `fork_session` / `fork_entry`).
"""

from __future__ import annotations

from pathlib import Path

from shard_core.engine.session_store import SessionStore, find_session, load_lineage
from shard_core.engine.state import write_private
from shard_core.types import AssistantMessage, MessageEntry, SessionEntry, SessionHeaderEntry
from shard_core.types.errors import ShardError
from shard_kernel.gateway.jobs.launch import LaunchError


def fork_point(home: Path, session_id: str | None) -> tuple[str, str]:
    """(the parent's session id, the entry its children start after); LaunchError when the
    parent has no session or no completed turn yet."""
    if session_id is None:
        raise LaunchError("context: fork needs the parent's session, and it has none yet")
    try:
        store = SessionStore.read(find_session(home, session_id))
        load_lineage(store, home)
    except ShardError as exc:
        raise LaunchError(f"context: fork cannot read the parent's session: {exc}") from None
    branch = store.branch()
    point = _before_last_prompt(branch)
    if point is None:
        raise LaunchError(
            "context: fork starts from the parent's last completed turn, and it has none yet; "
            'use context "fresh" (the default)'
        )
    return session_id, point


def _before_last_prompt(branch: list[SessionEntry]) -> str | None:
    """Where the last completed turn ends: the branch's end when the newest turn is over,
    else the entry before the newest turn's prompt (None: no completed turn)."""
    prompts = [i for i, e in enumerate(branch) if _is_prompt(e)]
    if not prompts:
        return None
    if _ended(branch[prompts[-1] :]):
        at = len(branch) - 1
    elif len(prompts) >= 2:
        at = prompts[-1] - 1
    else:
        return None
    entry = branch[at]
    return None if isinstance(entry, SessionHeaderEntry) else entry.id


def _is_prompt(entry: SessionEntry) -> bool:
    if not isinstance(entry, MessageEntry) or entry.details.message.role != "user":
        return False
    details = entry.details
    return details.turn_id is not None and details.steer_id is None and details.context is None


def _ended(turn: list[SessionEntry]) -> bool:
    """Whether a turn is over: its newest message is the model's, asking for no tool."""
    last = next((e for e in reversed(turn) if isinstance(e, MessageEntry)), None)
    message = last.details.message if last is not None else None
    return isinstance(message, AssistantMessage) and not message.tool_calls


def start_from(home: Path, agent_id: str, cwd: str, point: tuple[str, str]) -> str:
    """The child's first session: forked at `point`, made its current session."""
    folder = home / "agents" / agent_id
    store = SessionStore.create(folder / "sessions", Path(cwd), agent_id=agent_id, parent=point)
    store.close()
    write_private(folder / "current-session", store.session_id.encode("utf-8"))
    return store.session_id
