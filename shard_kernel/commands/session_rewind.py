"""`shard session rewind|diff|revert`: checkpoints of a session log no agent has open.

    shard session rewind s-1a2b.jsonl                     # the turns, with their entry ids
    shard session rewind s-1a2b.jsonl --to 9f8e7d6c5b4a --code
    shard session rewind s-1a2b.jsonl --turn 3 --both --keep
    shard session rewind s-1a2b.jsonl --undo
    shard session diff s-1a2b.jsonl --turn 3              # per file, notebooks per cell
    shard session revert s-1a2b.jsonl src/app.py --turn 3 --hunk 2

The workspace is the folder the log's header names (`--cwd` for another). Each takes the log's
writer lock (a running agent owns it: use `/rewind` there). Exit codes: 0 done, 1 refused or
done in part (a person's edit, a file that could not be restored: the output says which), 2 a
bad target or option.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from shard_kernel.exit_codes import ExitCode

if TYPE_CHECKING:
    from shard_core.capabilities.checkpoints import Checkpoints, Outcome
    from shard_core.engine.session_store import SessionStore

# the checkpoints (the protocol's review models, the workspace's ignore rules) load when an
# action runs: `shard session compact` registers these parsers too and reads none of it

HomeOf = Callable[[Path], Path]


def add_rewind_actions(
    actions: argparse._SubParsersAction[argparse.ArgumentParser], home_of: HomeOf
) -> None:
    rewind = actions.add_parser(
        "rewind",
        help="put files and/or the conversation back to before a turn or entry",
        description="Rewind a session's files (kept in its checkpoints), its conversation, or "
        "both, to before a turn or an entry. Without --to/--turn/--undo: list the turns.",
        epilog=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rewind.add_argument("file", help="the session .jsonl, or its id")
    where = rewind.add_mutually_exclusive_group()
    where.add_argument("--to", metavar="ENTRY", help="rewind to before this entry")
    where.add_argument("--turn", type=int, help="rewind to before this turn (1 = the first)")
    where.add_argument("--undo", action="store_true", help="undo the last rewind")
    scope = rewind.add_mutually_exclusive_group()
    for name in ("code", "conversation", "both"):
        scope.add_argument(f"--{name}", dest="scope", action="store_const", const=name)
    choice = rewind.add_mutually_exclusive_group()
    force = "overwrite files a person changed with the earlier version"
    keep = "keep files a person changed; restore the rest"
    choice.add_argument("--force", dest="choice", action="store_const", const="force", help=force)
    choice.add_argument("--keep", dest="choice", action="store_const", const="keep", help=keep)
    rewind.add_argument("--cwd", help="the workspace (default: the one the log names)")
    rewind.set_defaults(handler=lambda a: _run_rewind(a, home_of))

    diff = actions.add_parser(
        "diff",
        help="what a turn or the whole session changed, file by file (notebooks per cell)",
        description="Review a session's file changes: per-file diffs, notebooks cell by cell.",
    )
    diff.add_argument("file", help="the session .jsonl, or its id")
    diff.add_argument("--turn", type=int, help="only this turn (default: the whole session)")
    diff.add_argument("--json", action="store_true", help="the render descriptors, as JSON")
    diff.add_argument("--cwd", help="the workspace (default: the one the log names)")
    diff.set_defaults(handler=lambda a: _run_diff(a, home_of))

    revert = actions.add_parser(
        "revert",
        help="put back one file, one hunk or one notebook cell as it was before a turn",
        description="Revert part of what a session changed (checkpointed: rewind undoes it).",
    )
    revert.add_argument("file", help="the session .jsonl, or its id")
    revert.add_argument("path", help="the file, relative to the workspace")
    revert.add_argument("--turn", type=int, help="the turn whose change (default: the session)")
    part = revert.add_mutually_exclusive_group()
    part.add_argument("--hunk", type=int, help="only this hunk (as `diff` numbers them)")
    part.add_argument("--cell", help="only this notebook cell (by id)")
    revert.add_argument("--force", action="store_true", help="even over a person's later edit")
    revert.add_argument("--cwd", help="the workspace (default: the one the log names)")
    revert.set_defaults(handler=lambda a: _run_revert(a, home_of))


def _open(
    args: argparse.Namespace, home_of: HomeOf, *, write: bool
) -> tuple[SessionStore, Checkpoints]:
    from shard_core.capabilities.checkpoints import Checkpoints
    from shard_core.engine.session_store import SessionStore, load_lineage
    from shard_core.types.errors import ConfigError
    from shard_kernel.commands.sessions import resolve_session

    path = resolve_session(args.file)
    store = SessionStore.open(path) if write else SessionStore.read(path)
    try:
        home = home_of(path)
        load_lineage(store, home)
        cwd = Path(args.cwd).expanduser() if args.cwd else None
        if cwd is not None and not cwd.is_dir():
            raise ConfigError(f"--cwd {args.cwd} is not a directory")
        return store, Checkpoints.offline(store, home, cwd)
    except BaseException:
        store.close()
        raise


def _report(outcome: Outcome) -> int:
    print(outcome.text)
    result = outcome.result
    if result is not None and (not result.applied or result.failed):
        return ExitCode.FAILED
    return ExitCode.OK


def _run_rewind(args: argparse.Namespace, home_of: HomeOf) -> int:
    from shard_core.capabilities.checkpoints import RewindError
    from shard_core.types.errors import ConfigError

    listing = args.to is None and args.turn is None and not args.undo
    store, service = _open(args, home_of, write=not listing)
    try:
        if listing:
            print(service.turns_table())
            return ExitCode.OK
        choice = args.choice or "refuse"
        if args.undo:
            outcome = service.undo(choice)
        else:
            target = args.to if args.to is not None else str(args.turn)
            outcome = service.rewind(target, args.scope or "both", choice)
        store.sync()
        return _report(outcome)
    except RewindError as exc:
        raise ConfigError(str(exc)) from None
    finally:
        store.close()


def _run_diff(args: argparse.Namespace, home_of: HomeOf) -> int:
    from shard_core.capabilities.checkpoints import RewindError
    from shard_core.types.errors import ConfigError

    store, service = _open(args, home_of, write=False)
    try:
        outcome = service.review(args.turn)
    except RewindError as exc:
        raise ConfigError(str(exc)) from None
    finally:
        store.close()
    if args.json:
        print(json.dumps([d.model_dump(mode="json", by_alias=True) for d in outcome.render or []]))
    else:
        print(outcome.text)
    return ExitCode.OK


def _run_revert(args: argparse.Namespace, home_of: HomeOf) -> int:
    from shard_core.capabilities.checkpoints import RewindError
    from shard_core.types.errors import ConfigError

    store, service = _open(args, home_of, write=True)
    try:
        outcome = service.revert(
            args.path, turn=args.turn, hunk=args.hunk, cell=args.cell, force=args.force
        )
        store.sync()
        return _report(outcome)
    except RewindError as exc:
        raise ConfigError(str(exc)) from None
    finally:
        store.close()
