"""Shard in jupyter-ai's chat: a persona that runs `shard acp` (`pip install 'shard[jupyter-ai]'`).

jupyter-ai 3.x finds personas through the `jupyter_ai.personas` entry point group; this package
is Shard's (`shard = "shard_kernel.jupyter_ai:ShardAcpPersona"` in pyproject.toml). Importing it
needs jupyter-ai's ACP client, which only the extra installs: nothing else in Shard imports it.
"""

from __future__ import annotations

from shard_kernel.jupyter_ai.persona import ShardAcpPersona, shard_acp_command

__all__ = ["ShardAcpPersona", "shard_acp_command"]
