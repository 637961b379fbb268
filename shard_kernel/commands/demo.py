"""`shard demo`: the README's main job — a real agent kernel fixes a bug, no key needed."""

from __future__ import annotations

import argparse
import os
import sys

from shard_core.engine.config import load_config
from shard_core.providers.models import DEMO_MODEL, NO_MODEL, resolve_default_model

EXAMPLES = """examples:
  shard demo                        # scripted demo provider when no key is configured
  shard demo --model anthropic/claude-sonnet-4-6   # the same task on a real model
  shard demo --keep                 # keep the workspace to look at the fixed project
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "demo",
        help="watch an agent kernel fix a small bug (offline)",
        description="Copy a small buggy project to a temp folder, start a real shard kernel, "
        "ask it to fix the bug, and stream what it does.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--model", help="model string (default: configured model, else demo)")
    parser.add_argument("--keep", action="store_true", help="keep the temp workspace")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from shard_kernel.demo.runner import DemoRunner

    return DemoRunner(sys.stdout, model=args.model or offline_model()).run(keep=args.keep)


def offline_model() -> str | None:
    """The demo's own script when no model is configured (it is written for the demo's project:
    this is where it plays by default); None lets the kernel take the configured model."""
    from shard_kernel.registrations import provider_specs

    model, _ = resolve_default_model(load_config(), os.environ, provider_specs())
    return DEMO_MODEL if model == NO_MODEL else None
