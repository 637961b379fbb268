"""`shard install-kernel`: install the `shard` kernelspec (the wheel already ships it)."""

from __future__ import annotations

import argparse

from shard_kernel.exit_codes import ExitCode

EXAMPLES = """examples:
  shard install-kernel --sys-prefix   # into this environment (e.g. after pip install -e .)
  shard install-kernel --user         # into ~/.local/share/jupyter
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "install-kernel",
        help="install the shard kernelspec",
        description="Install the `shard` kernelspec so Jupyter can start agent kernels.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="install for the current user")
    where.add_argument("--sys-prefix", action="store_true", help="install into sys.prefix")
    where.add_argument("--prefix", help="install under this prefix")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    import sys

    from shard_kernel.kernelspec import install_kernelspec

    prefix = sys.prefix if args.sys_prefix else args.prefix
    path = install_kernelspec(user=args.user, prefix=prefix)
    print(f"installed the shard kernelspec in {path}")
    return ExitCode.OK
