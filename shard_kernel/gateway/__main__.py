"""`python -m shard_kernel.gateway [options]`: the same as `shard gateway [options]`."""

from __future__ import annotations

import argparse
import sys

from shard_core.types.errors import ShardError
from shard_kernel.commands.gateway import add_gateway_options, handle


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="shard gateway")
    add_gateway_options(parser)
    args = parser.parse_args(argv)
    try:
        return handle(args)
    except ShardError as exc:
        print(f"shard: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
