"""`shard usage`: token use and cost from `SHARD_HOME/usage.jsonl`, grouped, with a bar chart.

shard usage                      the last 7 days by model
shard usage --since 30d --by day
shard usage --since 2026-11-01 --by agent --json
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from shard_core.engine.state import shard_home
from shard_core.engine.usage_history import USAGE_FILE, UsageRecord, read_usage
from shard_core.types import Usage
from shard_core.types.errors import ConfigError
from shard_kernel.exit_codes import ExitCode

GROUPS = ("model", "agent", "day", "session")
BAR = 24
_SPAN = re.compile(r"^(\d+)([hdw])$")
_UNITS = {"h": 3600, "d": 86_400, "w": 7 * 86_400}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "usage",
        help="token use and cost per model, agent or day",
        description="Token use and cost of every provider request, from SHARD_HOME/usage.jsonl.",
        epilog=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--since", default="7d", help="a span (12h, 7d, 4w), a date (YYYY-MM-DD) or 'all'"
    )
    parser.add_argument("--by", choices=GROUPS, default="model", help="group rows by")
    parser.add_argument("--json", action="store_true", help="rows as JSON")
    parser.set_defaults(handler=run)


def parse_since(text: str, now: float | None = None) -> float | None:
    """Epoch seconds for `--since`, None for 'all'; ConfigError naming the accepted forms."""
    now = time.time() if now is None else now
    if text == "all":
        return None
    if match := _SPAN.match(text):
        return now - int(match.group(1)) * _UNITS[match.group(2)]
    try:
        return time.mktime(time.strptime(text, "%Y-%m-%d"))
    except ValueError:
        raise ConfigError(
            f"--since {text!r}: give a span like 12h, 7d or 4w, a date like 2026-11-01, or all"
        ) from None


@dataclass
class Row:
    key: str
    requests: int = 0
    usage: Usage = field(default_factory=Usage)


def group(records: Iterable[UsageRecord], by: str) -> list[Row]:
    rows: dict[str, Row] = {}
    for record in records:
        if by == "day":
            key = time.strftime("%Y-%m-%d", time.localtime(record.ts))
        else:
            key = {"model": record.model, "agent": record.agent_id, "session": record.session_id}[
                by
            ]
        row = rows.setdefault(key, Row(key))
        row.requests += 1
        row.usage = row.usage + record.usage
    order = sorted(rows.values(), key=lambda r: r.key)
    return order if by == "day" else sorted(order, key=lambda r: -_tokens(r.usage))


def usage_row(row: Row) -> dict[str, object]:
    """A row as JSON: key, requests and the Usage fields."""
    return {"key": row.key, "requests": row.requests, **row.usage.model_dump(mode="json")}


def _tokens(u: Usage) -> int:
    return u.input_tokens + u.output_tokens + u.cache_read_tokens + u.cache_write_tokens


def table(rows: list[Row], by: str) -> str:
    width = max([len(by), *(len(r.key) for r in rows)])
    most = max((_tokens(r.usage) for r in rows), default=0) or 1
    lines = [
        f"{by:<{width}}  {'requests':>8}  {'input':>10}  {'output':>9}  {'cache rd':>10}  "
        f"{'cache wr':>9}  {'cost':>9}  tokens"
    ]
    total = Row("total")
    for row in rows:
        u = row.usage
        total.requests += row.requests
        total.usage = total.usage + u
        bar = "█" * max(1, round(BAR * _tokens(u) / most)) if _tokens(u) else ""
        lines.append(
            f"{row.key:<{width}}  {row.requests:>8,}  {u.input_tokens:>10,}  "
            f"{u.output_tokens:>9,}  {u.cache_read_tokens:>10,}  {u.cache_write_tokens:>9,}  "
            f"{_cost(u.cost_usd):>9}  {bar}"
        )
    u = total.usage
    lines.append(
        f"{'total':<{width}}  {total.requests:>8,}  {u.input_tokens:>10,}  {u.output_tokens:>9,}  "
        f"{u.cache_read_tokens:>10,}  {u.cache_write_tokens:>9,}  {_cost(u.cost_usd):>9}"
    )
    return "\n".join(lines)


def _cost(cost: float | None) -> str:
    return "?" if cost is None else f"${cost:.4f}"


def run(args: argparse.Namespace) -> int:
    since = parse_since(args.since)
    path = shard_home() / USAGE_FILE
    rows = group(read_usage(path, since), args.by)
    if args.json:
        print(json.dumps([usage_row(r) for r in rows], indent=2))
        return ExitCode.OK
    if not rows:
        when = "ever" if since is None else f"since {args.since}"
        print(f"no provider requests recorded {when} (in {path})")
        return ExitCode.OK
    print(table(rows, args.by))
    return ExitCode.OK
