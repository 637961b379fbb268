"""The `shard` command: one entry point, one subcommand per job."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from shard_core import __version__
from shard_kernel.commands import RAW_OUTPUT, register_all, register_summaries
from shard_kernel.exit_codes import ExitCode, for_error

if TYPE_CHECKING:
    from shard_core.types.errors import ShardError

EPILOG = """examples:
  shard --version
"""


def build_parser(only: str | None = None, *, summaries: bool = False) -> argparse.ArgumentParser:
    """The `shard` parser with every subcommand (`only`: with that one; `summaries`: with
    placeholders that only name them, importing no command module)."""
    parser = argparse.ArgumentParser(
        prog="shard",
        description="Shard: a coding-agent harness that lives in Jupyter.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"shard {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    if summaries:
        register_summaries(subparsers)
    else:
        register_all(subparsers, only)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    listing = build_parser(summaries=True)
    command = listing.parse_known_args(argv)[0].command  # -h and --version end here
    if command is None:
        listing.print_help()
        return ExitCode.OK
    args = build_parser(command).parse_args(argv)  # imports that command's module only
    handler: Callable[[argparse.Namespace], int] | None = getattr(args, "handler", None)
    if handler is None:
        listing.print_help()
        return ExitCode.OK
    from shard_kernel.terminal.output import safe_output

    if command in RAW_OUTPUT:
        return _run(handler, args)
    with safe_output():  # what the command prints is mostly model, tool and server text
        return _run(handler, args)


def _run(handler: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    try:
        return handler(args)
    except KeyboardInterrupt:
        print("shard: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:  # `shard sessions show … | head`: the reader left, as for cat
        _silence_stdout()
        return ExitCode.BROKEN_PIPE
    except Exception as exc:
        error = _shard_error(exc)
        if error is None:
            raise
        from shard_kernel.terminal.escape import terminal_safe

        print(f"shard: error: {terminal_safe(str(error))}", file=sys.stderr)
        return for_error(error)


def _shard_error(exc: Exception) -> ShardError | None:
    """`exc` when it is a ShardError, known without importing shard_core.types (every wire
    model) in a command that never loaded it (`shard acp` answers initialize without them):
    one can only have been raised once its module is loaded."""
    errors = sys.modules.get("shard_core.types.errors")
    if errors is None:
        return None
    shard_error: type[ShardError] = errors.ShardError
    return exc if isinstance(exc, shard_error) else None


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


if __name__ == "__main__":
    raise SystemExit(main())
