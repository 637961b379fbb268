"""One module per `shard` subcommand; each exposes `register(subparsers)`.

A module's `register` adds its parser and sets `handler=<function(args) -> exit code>`.
`shard --help` lists the subcommands from SUMMARIES without importing any of them; a command's
module is imported when it runs (`register_all(…, only=name)`): each pulls in what its job
needs (the engine, Jupyter, an SDK), which no other command should pay for.
"""

from __future__ import annotations

import argparse
import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    _Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]

SUBCOMMANDS: tuple[str, ...] = (
    "demo",
    "run",
    "agent",
    "acp",
    "agents",
    "batch",
    "workflow",
    "gateway",
    "sessions",
    "session",
    "usage",
    "rules",
    "extensions",
    "mcp",
    "hooks",
    "install-kernel",
)
"""Module names under shard_kernel.commands, in the order `shard --help` lists them."""

RAW_OUTPUT: frozenset[str] = frozenset(
    {"demo", "run", "agents", "agent", "acp", "batch", "gateway"}
)
"""Commands whose output is not escaped as a whole (shard_kernel.terminal.output): the terminal
renderer escapes what it shows and adds its own colours (`run`, `demo`, `agents attach`; `agents`
escapes its other lines itself), `batch` escapes its lines, `agent` writes JSONL, `acp` speaks
JSON-RPC, `gateway` is a server's log. Every other command's stdout and stderr pass through
terminal_safe."""

SUMMARIES: dict[str, str] = {
    "demo": "watch an agent kernel fix a small bug (offline)",
    "run": "run one agent turn headless",
    "agent": "run one agent over a stdio JSONL transport",
    "acp": "serve the Agent Client Protocol on stdio (Zed, marimo, jupyter-ai)",
    "agents": "list, create, kill or attach to a gateway's agents",
    "batch": "run a shard notebook unattended",
    "workflow": "run a workflow file of agents, list, show or cancel runs",
    "gateway": "run a headless Jupyter server that supervises agent kernels",
    "sessions": "list, show and fork sessions",
    "session": "compact, search, rewind or review a session log",
    "usage": "token use and cost per model, agent or day",
    "rules": "inspect permission rules",
    "extensions": "list extensions",
    "mcp": "list and test MCP servers",
    "hooks": "list command hooks or run one against a sample event",
    "install-kernel": "install the shard kernelspec",
}
"""Each subcommand's `help=` as its module registers it (a test keeps the two the same)."""


def register_all(subparsers: _Subparsers, only: str | None = None) -> None:
    """Every subcommand's parser (`only`: that one's), from its module."""
    for name in SUBCOMMANDS:
        if only is None or name == only:
            module = importlib.import_module(f"shard_kernel.commands.{name.replace('-', '_')}")
            module.register(subparsers)


def register_summaries(subparsers: _Subparsers) -> None:
    """A placeholder parser per subcommand: its summary for `shard --help`, and `command`
    naming it for `register_all(…, only=…)`; its arguments are the real parser's to read."""
    for name in SUBCOMMANDS:
        subparsers.add_parser(name, help=SUMMARIES.get(name, ""), add_help=False)
