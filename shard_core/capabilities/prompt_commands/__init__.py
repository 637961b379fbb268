"""Custom prompt commands (L3): markdown files in `commands/` folders, each registered as a
slash command through `api.register_command`; `/name ARGS` sends the expanded body as the
user turn."""

from __future__ import annotations

from shard_core.capabilities.prompt_commands.expand import expand
from shard_core.capabilities.prompt_commands.extension import (
    PromptCommands,
    install_prompt_commands,
    send_turn,
)
from shard_core.capabilities.prompt_commands.files import (
    PromptFile,
    command_roots,
    load_prompt_files,
)

__all__ = [
    "PromptCommands",
    "PromptFile",
    "command_roots",
    "expand",
    "install_prompt_commands",
    "load_prompt_files",
    "send_turn",
]
