"""Options several subcommands share: agent configuration and permission rules."""

from __future__ import annotations

import argparse


def add_agent_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cwd", default=".", help="workspace directory (default: .)")
    parser.add_argument(
        "--model",
        help="e.g. anthropic/claude-sonnet-4-5, openai/gpt-5, "
        "openai/<model>@http://127.0.0.1:11434/v1, scripted/demo (default: from config/env)",
    )
    parser.add_argument(
        "--mode", default=None, help="plan or build (default: the agent definition's, else build)"
    )
    parser.add_argument(
        "--agent",
        metavar="NAME",
        dest="agent_definition",
        help="build the agent from the definition agents/NAME.md (~/.config/shard/agents, "
        "or the project's .shard/agents with --trust-project)",
    )
    parser.add_argument(
        "--allow", action="append", default=[], metavar="RULE", help="allow rule, repeatable"
    )
    parser.add_argument(
        "--deny", action="append", default=[], metavar="RULE", help="deny rule, repeatable"
    )
    parser.add_argument(
        "--trust-project",
        action="store_true",
        help="read the project's SHARD.md/AGENTS.md, allow rules, skills, agent definitions "
        "and extensions",
    )
