"""`shard session compact`, `recall` and `search`: compaction and recall on session logs.

    shard session compact ~/.shard/sessions/s-1a2b.jsonl --dry-run
    shard session recall ~/.shard/sessions/s-1a2b.jsonl "refresh token" --scope compaction:0
    shard session search "refresh token"
    shard session request ~/.shard/sessions/s-1a2b.jsonl --entry 9f8e7d6c5b4a3210

`compact` prints the summary a compaction would write now (`--dry-run`), or appends the
compaction entry to the log. It takes the log's writer lock, so it refuses while the agent that
owns the session is running (stop the agent first); nothing is ever rewritten. A fork's
ancestors are read from the same folder. `recall` answers like the agent's recall tool.
`search` ranks the entries of every session under SHARD_HOME through one rebuildable cache.
`request` rebuilds the exact provider request behind an assistant message from the log alone.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from shard_kernel.commands.session_rewind import add_rewind_actions
from shard_kernel.exit_codes import ExitCode

if TYPE_CHECKING:
    from shard_core.engine.session_store import SessionStore
    from shard_core.types import CompactionDetails, SessionEntry

# Each action imports what it reads when it runs: `compact` the entry models, the store and the
# compactor; `search` the recall cache; `request` the providers; `rewind` the checkpoints.

_EXAMPLES = """examples:
  shard session compact ~/.shard/sessions/s-1a2b.jsonl --dry-run
  shard session compact s-1a2b.jsonl --window 200000 --target 100000 --reason threshold
  shard session recall s-1a2b.jsonl "refresh token"
  shard session recall s-1a2b.jsonl "Error:.*timeout" --mode regex --scope latest
  shard session recall s-1a2b.jsonl --expand 120 121
  shard session search "refresh token" --limit 20
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "session",
        help="compact, search, rewind or review a session log",
        description="Compact a session log, search its whole history, rewind or review the "
        "files it changed.",
    )
    actions = parser.add_subparsers(dest="session_action", metavar="ACTION")
    _add_compact(actions)
    _add_recall(actions)
    _add_search(actions)
    _add_request(actions)
    add_rewind_actions(actions, _home_of)
    parser.set_defaults(handler=lambda _args: _usage(parser))


def _add_compact(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    compact = actions.add_parser(
        "compact",
        help="print or append the compaction summary of a session log",
        description="Compact a session log deterministically (no model call).",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    compact.add_argument("file", help="the session .jsonl, or its id")
    compact.add_argument("--dry-run", action="store_true", help="print the summary, write nothing")
    compact.add_argument(
        "--window", type=_tokens(1), default=200_000, help="context window (tokens)"
    )
    compact.add_argument(
        "--target", type=_tokens(1), default=None, help="tokens after (default: window/2)"
    )
    compact.add_argument(
        "--keep", type=_tokens(0), default=20_000, help="recent tokens kept verbatim"
    )
    compact.add_argument(
        "--reason", choices=["manual", "threshold"], default="manual",
        help="manual keeps the last turn; threshold keeps up to --keep tokens",
    )  # fmt: skip
    compact.set_defaults(handler=run_compact)


def _tokens(least: int) -> Callable[[str], int]:
    """An argparse type: a whole number of tokens, at least `least`."""

    def parse(text: str) -> int:
        try:
            value = int(text.replace("_", "").replace(",", ""))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"{value} is too small: use at least {least}")
        return value

    parse.__name__ = "tokens"
    return parse


def _add_recall(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    recall = actions.add_parser(
        "recall",
        help="search a session's full history, across compactions and forks",
        description="Search a session log like the agent's recall tool does.",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    recall.add_argument("file", help="the session .jsonl, or its id")
    recall.add_argument("query", nargs="?", default=None, help="words, a regex or a path")
    recall.add_argument("--scope", default="all", help="all | latest | compaction:N")
    recall.add_argument("--mode", default="search", help="search | regex | touched")
    recall.add_argument("--recent", type=int, default=None, help="results per page")
    recall.add_argument("--cursor", default=None, help="the cursor a previous page gave")
    recall.add_argument("--expand", type=int, nargs="+", default=[], metavar="N")
    recall.set_defaults(handler=run_recall)


def _add_search(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    search = actions.add_parser(
        "search",
        help="search every session under SHARD_HOME",
        description="Ranked word search over every session log under SHARD_HOME.",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    search.add_argument("query", help="words (stemmed: rotation finds rotates)")
    search.add_argument("--limit", type=int, default=10, help="results (default 10)")
    search.set_defaults(handler=run_search)


def _add_request(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    request = actions.add_parser(
        "request",
        help="rebuild the exact provider request behind an assistant message, from the log",
        description="Rebuild, from the session log alone, the request that produced an "
        "assistant message: the JSON body the provider's SDK sent (canonical: sorted keys, "
        "no spaces), or with --neutral Shard's provider-neutral request.",
        epilog="examples:\n  shard session request s-1a2b.jsonl --entry 9f8e7d6c5b4a3210\n"
        "  shard session request s-1a2b.jsonl --all > requests.jsonl",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    request.add_argument("file", help="the session .jsonl, or its id")
    which = request.add_mutually_exclusive_group(required=True)
    which.add_argument("--entry", help="the assistant message's entry id")
    which.add_argument("--all", action="store_true", help="every request of this log, one a line")
    request.add_argument("--neutral", action="store_true", help="the provider-neutral request")
    request.set_defaults(handler=run_request)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return ExitCode.BAD_INPUT


def _measure(branch: list[SessionEntry]) -> int:
    from shard_core.engine.compaction import estimate_entries, estimate_text, live_context
    from shard_core.engine.compaction.tokens import ENTRY_OVERHEAD_TOKENS

    summary, kept = live_context(branch)
    return (estimate_text(summary) + ENTRY_OVERHEAD_TOKENS if summary else 0) + estimate_entries(
        kept
    )


def _compactions(branch: list[SessionEntry]) -> int:
    """How many compaction entries the branch holds: the index of the next one (counted by
    class, in C: an isinstance per entry that fails runs the model metaclass's check)."""
    from collections import Counter

    from shard_core.types import CompactionEntry

    counts = Counter(map(type, branch))
    return sum(n for cls, n in counts.items() if issubclass(cls, CompactionEntry))


def _plan(store: SessionStore, args: argparse.Namespace) -> CompactionDetails | None:
    from shard_core.contracts.compactor import CompactionInput
    from shard_core.engine.compaction import DeterministicCompactor
    from shard_core.engine.recall.lineage import lineage_paths
    from shard_core.engine.session_store import SessionStore

    ancestors = [SessionStore.read(p) for p in reversed(lineage_paths(store.path)[:-1])]
    store.attach_parents(ancestors)
    branch = store.branch()
    data = CompactionInput(
        branch=branch,
        context_tokens=_measure(branch),
        context_window=args.window,
        target_tokens=args.target if args.target is not None else args.window // 2,
        reason=args.reason,
        index=_compactions(branch),
    )
    return DeterministicCompactor(keep_recent_tokens=args.keep).compact(data)


def _why_not(store: SessionStore, args: argparse.Namespace) -> str:
    branch = store.branch()
    if not any(e.type == "message" for e in branch):
        return "the session has no messages yet"
    tokens = _measure(branch)
    if args.reason == "manual":
        kept = (
            "everything since the last compaction is its last turn, which is kept, or a "
            "summary would not make it smaller"
        )
    else:
        kept = (
            f"the kept tail (up to --keep {args.keep:,} tokens) holds it all, or a summary "
            "would not make it smaller"
        )
    return f"live context ~{tokens:,} tokens; {kept}"


def run_compact(args: argparse.Namespace) -> int:
    from shard_core.engine.session_store import SessionStore
    from shard_core.types import CompactionEntry
    from shard_kernel.commands.sessions import resolve_session

    path = resolve_session(args.file)
    store = SessionStore.read(path) if args.dry_run else SessionStore.open(path)
    try:
        details = _plan(store, args)
        if details is None:
            print(f"nothing to compact: {_why_not(store, args)}", file=sys.stderr)
            return ExitCode.OK
        print(details.summary, end="")
        if not args.dry_run:
            store.append(CompactionEntry, details)
            store.sync()
    finally:
        if not args.dry_run:
            store.close()
    verb = "would fold" if args.dry_run else "folded"
    print(
        f"{verb} {details.range_first_id}..{details.range_last_id} as compaction "
        f"{details.index}; ~{details.tokens_before:,} → ~{details.tokens_after:,} tokens",
        file=sys.stderr,
    )
    return ExitCode.OK


def run_recall(args: argparse.Namespace) -> int:
    from shard_core.engine.recall import answer, lineage_paths, parse_request
    from shard_core.types.errors import ConfigError
    from shard_kernel.commands.sessions import resolve_session

    raw: dict[str, object] = {"scope": args.scope, "mode": args.mode, "expand": args.expand}
    for key in ("query", "recent", "cursor"):
        if getattr(args, key) is not None:
            raw[key] = getattr(args, key)
    request = parse_request(raw)
    if isinstance(request, str):
        raise ConfigError(request)
    result = answer(lineage_paths(resolve_session(args.file)), request)
    print(result.text)
    return ExitCode.BAD_INPUT if result.error else ExitCode.OK


def run_request(args: argparse.Namespace) -> int:
    import asyncio

    from shard_core.engine.provenance import rebuild_request, request_entries
    from shard_core.engine.session_store import SessionStore, load_lineage
    from shard_core.providers.wire import canonical_json, wire_body
    from shard_core.sdk import registered_providers  # the whole bootstrap: only `request` needs it
    from shard_kernel.commands.sessions import resolve_session

    path = resolve_session(args.file)
    store = SessionStore.read(path)
    load_lineage(store, _home_of(path))
    ids = [e.id for e in request_entries(store)] if args.all else [args.entry]
    if not ids:
        print(
            f"{store.session_id} has no assistant message with a recorded request", file=sys.stderr
        )
        return ExitCode.NOT_FOUND
    # every provider the log's agent could have had (an extension's too) knows its wire body
    specs = [] if args.neutral else asyncio.run(registered_providers(_home_of(path)))
    for entry_id in ids:
        rebuilt = rebuild_request(store, entry_id)
        record = rebuilt.record
        body = None if args.neutral else wire_body(record.provider, rebuilt.request,
                                                   record.options, specs)  # fmt: skip
        if body is None:
            body = rebuilt.request.model_dump(mode="json")
            if not args.neutral:
                print(f"{entry_id}: provider {record.provider!r} has no known wire format: "
                      "the neutral request follows", file=sys.stderr)  # fmt: skip
        for note in rebuilt.notes:
            print(f"{entry_id}: {note}", file=sys.stderr)
        print(_json_visible(canonical_json(body)))
    return ExitCode.OK


_JSON_UNSAFE = re.compile(r"[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _json_visible(text: str) -> str:
    """The canonical JSON with the controls JSON leaves raw (DEL, C1, bidi) as `\\u` escapes:
    the same JSON value, and nothing for the terminal filter to turn into invalid JSON."""
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _home_of(path: Path) -> Path:
    """The SHARD_HOME a log lives in (…/sessions/x.jsonl or …/agents/A/sessions/x.jsonl), for
    finding a fork's ancestors; SHARD_HOME when the log lives elsewhere."""
    from shard_core.engine.state import shard_home

    parents = path.resolve().parents
    if len(parents) > 3 and parents[0].name == "sessions" and parents[2].name == "agents":
        return parents[3]
    if len(parents) > 1 and parents[0].name == "sessions":
        return parents[1]
    return shard_home()


def run_search(args: argparse.Namespace) -> int:
    from shard_core.engine.recall import search_home
    from shard_core.engine.state import shard_home

    hits = search_home(shard_home(), args.query, max(1, args.limit))
    for hit in hits:
        print(f"{hit.session} #{hit.pos} {hit.label}: {' '.join(hit.snippet.split())[:240]}")
    if hits.note:
        print(hits.note)
    if not hits:
        print(f'no session under {shard_home()} has "{args.query}"')
    return ExitCode.OK if hits else ExitCode.NOT_FOUND
