"""SessionCatalog: what a person (or the model) needs to pick a session — its title, workspace,
agent, last activity and usage — read from the session logs under SHARD_HOME.

A fork without a title of its own shows its parent's (the title is inherited through the
lineage). Last activity is the newest entry's timestamp. Usage sums the assistant messages'
reported usage, so it covers exactly what the log shows.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from shard_core.engine.session_store import SessionStore
from shard_core.engine.titles import latest_title
from shard_core.types import AssistantMessage, MessageEntry, Usage


@dataclass
class SessionInfo:
    session_id: str
    path: Path
    workspace: str | None
    agent_id: str | None
    title: str | None
    last_activity: float
    entries: int
    parent: str | None = None
    usage: Usage = field(default_factory=Usage)


def session_logs(home: Path) -> list[Path]:
    """Every session log where the session store keeps them."""
    folders = [home / "sessions"]
    with contextlib.suppress(OSError), os.scandir(home / "agents") as agents:
        folders += [Path(a.path) / "sessions" for a in agents if a.is_dir()]
    logs: list[Path] = []
    for folder in folders:
        with contextlib.suppress(OSError):
            logs += [p for p in folder.iterdir() if p.suffix == ".jsonl" and p.is_file()]
    return logs


def session_info(path: Path) -> SessionInfo:
    store = SessionStore.read(path)
    header = store.header.details if store.header else None
    usage = Usage()
    for entry in store.entries:
        message = entry.details.message if isinstance(entry, MessageEntry) else None
        if isinstance(message, AssistantMessage) and message.usage is not None:
            usage = usage + message.usage
    title = latest_title(store.entries)
    last = store.entries[-1].ts if store.entries else path.stat().st_mtime
    return SessionInfo(
        session_id=store.session_id,
        path=path,
        workspace=header.cwd if header else None,
        agent_id=header.agent_id if header else None,
        title=title.title if title else None,
        last_activity=last,
        entries=len(store.entries),
        parent=header.parent_session if header else None,
        usage=usage,
    )


def catalog(home: Path) -> list[SessionInfo]:
    """Every session under `home`, least recently active first; forks inherit titles."""
    infos: list[SessionInfo] = []
    for path in session_logs(home):
        with contextlib.suppress(OSError):
            infos.append(session_info(path))
    by_id = {i.session_id: i for i in infos}
    for info in infos:
        seen = {info.session_id}
        parent = by_id.get(info.parent or "")
        while info.title is None and parent is not None and parent.session_id not in seen:
            seen.add(parent.session_id)
            info.title = parent.title
            parent = by_id.get(parent.parent or "")
    return sorted(infos, key=lambda i: (i.last_activity, i.session_id))
