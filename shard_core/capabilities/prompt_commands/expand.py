"""A prompt command's body made into the user turn: `$ARGUMENTS`, `$1`..`$9`, and `@path`
includes contained to the workspace (refused like the read tool outside it)."""

from __future__ import annotations

import re

from shard_core.contracts import ToolContext
from shard_core.tools.workspace import resolve_in_workspace
from shard_core.types import ToolResult
from shard_core.types.errors import ConfigError

ARGUMENT = re.compile(r"\$(ARGUMENTS|[1-9])")
INCLUDE = re.compile(r"(?<![\w`])@([\w./-]+[\w/])")
SHELL_LINE = re.compile(r"!`([^`]+)`")
MAX_INCLUDE = 256_000


def expand(body: str, args: list[str], ctx: ToolContext) -> str:
    """The text sent as the turn (its !`cmd` lines still to run), or a ConfigError saying
    why not (an include outside the workspace)."""

    def argument(match: re.Match[str]) -> str:
        key = match.group(1)
        if key == "ARGUMENTS":
            return " ".join(args)
        index = int(key) - 1
        return args[index] if index < len(args) else ""

    text = ARGUMENT.sub(argument, body)
    return INCLUDE.sub(lambda m: _include(m.group(1), ctx), text)


def _include(raw: str, ctx: ToolContext) -> str:
    path = resolve_in_workspace(raw, ctx)
    if isinstance(path, ToolResult):
        raise ConfigError(f"@{raw}: {path.text}; nothing was sent")
    if not path.is_file():
        raise ConfigError(f"@{raw}: no such file in the workspace; nothing was sent")
    try:
        data = path.read_bytes()[:MAX_INCLUDE]
    except OSError as exc:
        raise ConfigError(f"@{raw}: could not be read: {exc}") from None
    return f'<file path="{raw}">\n{data.decode("utf-8", "replace")}\n</file>'
