"""Slash commands: a line `/name ARGS` runs the command an extension registered as `name`.

The centre only looks up: every command, the bundled ones included (`/mode`, `/help`, …, from
the `shard.commands` capability), is registered through `api.register_command`. A command's
failure is its output (a ConfigError naming its extension), never a crash of the surface.
"""

from __future__ import annotations

import inspect
import shlex

from shard_core.engine.extension_host import ExtensionHost
from shard_core.types.errors import ConfigError


class PromptTurn(str):
    """What a prompt command returns: the expanded text, sent as the user turn (a surface that
    knows it runs a turn; one that does not shows the text as the command's output)."""

    command: str = ""


def prompt_turn(text: str, command: str) -> PromptTurn:
    turn = PromptTurn(text)
    turn.command = command
    return turn


def split_command(text: str) -> tuple[str, list[str]]:
    """`/name` and the words after it (shell-style quoting), or a ConfigError saying why not."""
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise ConfigError(f"could not parse {text!r}: {exc}") from None
    if not words or not words[0].startswith("/") or len(words[0]) < 2:
        raise ConfigError(f"not a slash command: {text!r} (try /help)")
    return words[0], words[1:]


async def run_command(host: ExtensionHost, text: str) -> str:
    """The markdown the command `text` names returns; a ConfigError when there is none or it
    failed (the message names the extension that owns it)."""
    name, args = split_command(text)
    command = host.command(name)
    if command is None:
        raise ConfigError(f"unknown command {name}; try /help")
    try:
        result = command.handler(args)
        return await result if inspect.isawaitable(result) else result
    except ConfigError:
        raise
    except Exception as exc:  # an extension's command failing is its output, not a crash
        raise ConfigError(
            f"{name} (from extension {command.extension}) failed: {type(exc).__name__}: {exc}"
        ) from None


def command_names(host: ExtensionHost | None) -> list[str]:
    """Every command a line can start with, by name (for completion)."""
    return [f"/{c.name}" for c in host.commands()] if host is not None else []
