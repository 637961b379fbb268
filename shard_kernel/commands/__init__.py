"""One module per `shard` subcommand; each exposes `register(subparsers)`.

A module's `register` adds its parser and sets `handler=<function(args) -> exit code>`.
"""

from __future__ import annotations

import argparse
import importlib

SUBCOMMANDS: tuple[str, ...] = (
    "demo",
    "run",
    "agent",
    "agents",
    "batch",
    "gateway",
    "sessions",
    "session",
    "usage",
    "rules",
    "extensions",
    "mcp",
    "install-kernel",
)
"""Module names under shard_kernel.commands, in the order `shard --help` lists them."""


def register_all(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    for name in SUBCOMMANDS:
        module = importlib.import_module(f"shard_kernel.commands.{name.replace('-', '_')}")
        module.register(subparsers)
