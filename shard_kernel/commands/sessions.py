"""`shard sessions list|search|show|fork`: find, browse and fork the session logs under
SHARD_HOME. `list` shows each session's title, workspace, last activity and usage; `search`
ranks sessions by relevance and recency together and names each by id and title."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from shard_core.engine.session_store import SessionStore, find_session
from shard_core.engine.state import shard_home
from shard_core.types import MessageEntry, SessionEntry, ToolResultEntry
from shard_core.types.errors import ConfigError, SessionNotFoundError
from shard_kernel.exit_codes import ExitCode

EXAMPLES = """examples:
  shard sessions list
  shard sessions search "refresh token" --workspace .
  shard sessions show s-1a2b3c4d5e6f7a8b
  shard sessions fork s-1a2b3c4d5e6f7a8b --entry 9f8e7d6c5b4a3210
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "sessions",
        help="list, show and fork sessions",
        description="Browse the session logs under SHARD_HOME and fork one from any entry.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    actions.add_parser("list", help="every session with its title, newest last")
    search = actions.add_parser("search", help="sessions ranked by relevance and recency")
    search.add_argument("query", help="words (stemmed: rotation finds rotates)")
    search.add_argument("--workspace", help="only sessions started in this folder")
    search.add_argument("--limit", type=int, default=10, help="sessions (default 10)")
    show = actions.add_parser("show", help="one session's transcript")
    show.add_argument("session", help="session id or path to a .jsonl log")
    fork = actions.add_parser("fork", help="a new session whose lineage points back")
    fork.add_argument("session", help="session id or path to a .jsonl log")
    fork.add_argument("--entry", help="fork point (default: the newest entry)")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    home = shard_home()
    if args.action == "list":
        return _list(home)
    if args.action == "search":
        return _search(home, args)
    path = _path(home, args.session)
    if args.action == "show":
        return _show(path)
    return _fork(path, args.entry)


def _path(home: Path, session: str) -> Path:
    return resolve_session(session, home)


def resolve_session(session: str, home: Path | None = None) -> Path:
    """A session log named by its path or by its id (`s-…`, looked up under SHARD_HOME).

    A file that is not a Shard session log (its first line is not the session header, e.g. an
    agent's events.jsonl) is refused with the reason, before anything reads or locks it."""
    path = Path(session).expanduser()
    if not path.is_file():
        if "/" in session:
            raise ConfigError(f"no session log at {path}")
        session_id = session.removesuffix(".jsonl")  # `s-1a2b.jsonl` names `s-1a2b` too
        home = home or shard_home()
        try:
            path = find_session(home, session_id)
        except SessionNotFoundError:
            if session_id == session:
                raise
            raise ConfigError(
                f"no session log at {path}, and no session {session_id!r} under {home}"
            ) from None
    _check_header(path)
    return path


def _check_header(path: Path) -> None:
    try:
        with path.open("rb") as f:
            first = f.readline(64 * 1024)
        record = json.loads(first) if first.strip() else None
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path} is not a Shard session log ({exc})") from None
    if record is None:
        raise ConfigError(f"{path} is empty: not a Shard session log (no session header)")
    if not isinstance(record, dict):
        raise ConfigError(
            f"{path} is not a Shard session log: its first line is a JSON "
            f"{type(record).__name__}, not the session header object"
        )
    kind = record.get("type")
    if kind != "session":
        raise ConfigError(
            f"{path} is not a Shard session log: its first line is a {kind!r} record, not the "
            "session header (session logs are SHARD_HOME/agents/<agent>/sessions/<id>.jsonl; "
            "`shard sessions list` shows them)"
        )


def _list(home: Path) -> int:
    from shard_core.engine.plurals import counted
    from shard_core.engine.recall.catalog import catalog  # the recall cache: `list` and `search`

    infos = catalog(home)
    if not infos:
        print(f"no sessions under {home}")
        return ExitCode.OK
    for info in infos:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.last_activity))
        u = info.usage
        cost = f"${u.cost_usd:.4f}" if u.cost_usd is not None else "$?"
        tokens = f"{u.input_tokens + u.cache_read_tokens:,} in / {u.output_tokens:,} out"
        title = f"“{info.title}”" if info.title else "(untitled)"
        print(
            f"{info.session_id}  {when}  {counted(info.entries, 'entry'):>11}  {tokens}  {cost}  "
            f"{info.agent_id or '-'}  {info.workspace or '?'}  {title}"
        )
    return ExitCode.OK


def _search(home: Path, args: argparse.Namespace) -> int:
    from shard_core.engine.recall.across import describe, search_sessions

    workspace = str(Path(args.workspace).expanduser().resolve()) if args.workspace else None
    matches = search_sessions(home, args.query, workspace=workspace, limit=max(1, args.limit))
    scope = f"in {workspace}" if workspace else f"under {home}"
    if not matches:
        print(f'no session {scope} has "{args.query}"')
        return ExitCode.NOT_FOUND
    for match in matches:
        print(describe(match))
        for hit in match.hits[:3]:
            print(f"  #{hit.pos} {hit.label}: {' '.join(hit.snippet.split())[:200]}")
    return ExitCode.OK


def _line(entry: SessionEntry) -> str | None:
    if isinstance(entry, MessageEntry):
        message = entry.details.message
        texts = [getattr(b, "text", "") for b in message.content if b.type == "text"]
        calls = [f"{b.name}(…)" for b in message.content if b.type == "tool_call"]
        body = " ".join(t for t in texts if t)[:200]
        return f"{entry.id}  {message.role:<9} {body} {' '.join(calls)}".rstrip()
    if isinstance(entry, ToolResultEntry):
        mark = "✗" if entry.details.result.is_error else "✓"
        first = (entry.details.result.text.splitlines() or [""])[0][:120]
        return f"{entry.id}  {mark} {entry.details.name:<7} {first}"
    return f"{entry.id}  [{entry.type}]"


def _show(path: Path) -> int:
    store = SessionStore.read(path)
    for entry in store.entries:
        line = _line(entry)
        if line:
            print(line)
    for problem in store.report.skipped:
        print(f"! damaged entry skipped: {problem}")
    return ExitCode.OK


def _fork(path: Path, entry_id: str | None) -> int:
    source = SessionStore.read(path)
    point = entry_id or source.leaf_id
    if point is None or source.get(point) is None:
        raise ConfigError(f"no entry {entry_id!r} in {source.session_id}")
    header = source.header
    cwd = Path(header.details.cwd) if header else Path.cwd()
    agent = header.details.agent_id if header else None
    child = SessionStore.create(path.parent, cwd, agent_id=agent, parent=(source.session_id, point))
    child.close()
    print(f"forked {source.session_id} at {point} into {child.session_id} ({child.path})")
    return ExitCode.OK
