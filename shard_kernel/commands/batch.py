"""`shard batch`: run a shard-kernel notebook headless through nbclient."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EXAMPLES = """examples:
  shard batch tasks.ipynb                       # writes tasks.out.ipynb
  shard batch tasks.ipynb -o done.ipynb --policy deny --allow 'Bash(pytest:*)'
  shard batch tasks.ipynb --model scripted/demo --timeout 600

exit status: 0 every cell ok, 1 a cell failed, 2 bad input, 3 a cell blocked by denials,
4 the model failed, 6 the kernel died, 124 a cell timed out, 130 SIGINT or SIGTERM
(docs/EXIT-CODES.md). The notebook is written in every case, each cell marked with its outcome.
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "batch",
        help="run a shard notebook unattended",
        description="Execute every cell of a notebook whose kernel is `shard` (each cell is a "
        "prompt); permission asks are decided by the headless policy.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("notebook", type=Path)
    parser.add_argument(
        "-o", "--output", type=Path, help="executed notebook (default: X.out.ipynb)"
    )
    parser.add_argument(
        "--policy",
        choices=["deny", "allow_if_rule_matches", "queue"],
        help="headless policy for permission asks (default: deny mutating, allow read-only)",
    )
    parser.add_argument(
        "--timeout", type=float, default=1800.0, help="seconds a cell may run (default: 1800)"
    )
    parser.add_argument(
        "--permission-timeout",
        type=float,
        metavar="SECONDS",
        help="how long an ask waits (default: 60); with --policy queue the run then stops, "
        "blocked, since no client can answer",
    )
    parser.add_argument("--model", help="model string (default: notebook metadata or config)")
    parser.add_argument("--cwd", type=Path, help="workspace (default: the notebook's folder)")
    parser.add_argument("--allow", action="append", default=[], metavar="RULE")
    parser.add_argument("--deny", action="append", default=[], metavar="RULE")
    parser.add_argument(
        "--trust-project",
        action="store_true",
        help="read the project's SHARD.md/AGENTS.md, allow rules, skills, agent definitions "
        "and extensions",
    )
    parser.add_argument(
        "--agent", metavar="NAME", help="build the agent from the definition agents/NAME.md"
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from shard_kernel.lazy_iri import defer

    defer()  # nbformat's jsonschema: the IRI grammar only if an IRI is validated (lazy_iri.py)
    from shard_kernel.batch import BatchOptions, run_batch

    opts = BatchOptions(
        notebook=args.notebook,
        output=args.output,
        policy=args.policy,
        timeout=args.timeout,
        permission_timeout=args.permission_timeout,
        model=args.model,
        allow=args.allow,
        deny=args.deny,
        cwd=args.cwd,
        trust_project=args.trust_project,
        agent_definition=args.agent,
    )
    return run_batch(opts, sys.stdout)
