"""The `shard` command: one entry point, one subcommand per job."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from shard_core import __version__
from shard_core.types.errors import ShardError
from shard_kernel.commands import register_all

EPILOG = """examples:
  shard --version
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="shard",
        description="Shard: a coding-agent harness that lives in Jupyter.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"shard {__version__}")
    register_all(parser.add_subparsers(dest="command", metavar="COMMAND"))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Callable[[argparse.Namespace], int] | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 0
    try:
        return handler(args)
    except ShardError as exc:
        print(f"shard: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("shard: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `shard sessions show … | head`: the reader left, as for cat
        _silence_stdout()
        return 141


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


if __name__ == "__main__":
    raise SystemExit(main())
