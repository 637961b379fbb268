"""The bundled slash commands (L3): `/mode`, `/compact`, `/recall`, `/fork`, `/grants`,
`/extensions`, `/title` and `/help`, registered through `api.register_command` exactly as a
third-party extension registers its own. A surface registers what needs it (the kernel:
`/status`); the engine's `slash_commands` runs whichever a line names.
"""

from __future__ import annotations

from shard_core.capabilities.commands.builtin import BuiltinCommands, CommandTarget
from shard_core.capabilities.commands.markdown import extensions_table, fenced, literal

__all__ = ["BuiltinCommands", "CommandTarget", "extensions_table", "fenced", "literal"]
