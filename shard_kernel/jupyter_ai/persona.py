"""ShardAcpPersona: `@Shard` in jupyter-ai's chat is a Shard agent spoken to over ACP.

jupyter-ai-acp-client's `BaseAcpPersona` starts the persona's `executable` as an ACP agent
subprocess, opens a session in the chat's folder and streams its answer, tool calls and
permission requests into the chat. This persona's executable is `shard acp`:

- SHARD_ACP_COMMAND, when set, is the whole command (split like a shell), e.g.
  `~/.local/bin/shard acp` for Shard installed in another environment;
- else `shard acp` by the Jupyter server's own Python (`pip install 'shard[jupyter-ai]'`: its
  ACP SDK is the 0.11 jupyter-ai-acp-client 0.3 pins, which `shard acp` runs on);
- SHARD_ACP_ARGS adds arguments either way, e.g. `--model anthropic/claude-sonnet-4-5`.

The subprocess inherits the server's environment, and with it SHARD_GATEWAY_URL and
SHARD_GATEWAY_TOKEN where Shard's gateway extension runs in the same server: then the command
gets `--gateway auto`, so each chat session is a gateway agent, shown in Shard's sidebar and
answerable from any tab (SHARD_ACP_ARGS with its own `--gateway` wins).
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jupyter_ai_acp_client.base_acp_persona import (  # pyright: ignore[reportMissingImports]
    BaseAcpPersona,  # pyright: ignore[reportUnknownVariableType]
)
from jupyter_ai_persona_manager import PersonaDefaults  # pyright: ignore[reportMissingImports]

__all__ = ["ShardAcpPersona", "shard_acp_command"]

AVATAR = Path(__file__).with_name("shard.svg")
COMMAND_VARIABLE = "SHARD_ACP_COMMAND"
ARGS_VARIABLE = "SHARD_ACP_ARGS"
GATEWAY_VARIABLE = "SHARD_GATEWAY_URL"
_BY_THIS_PYTHON = "import sys; from shard_kernel.cli import main; sys.exit(main())"


def shard_acp_command(env: Mapping[str, str] | None = None) -> list[str]:
    """The command the persona runs: SHARD_ACP_COMMAND, else `shard acp` by this Python."""
    env = os.environ if env is None else env
    argv = shlex.split(env.get(COMMAND_VARIABLE, ""))
    if not argv:
        argv = [sys.executable, "-c", _BY_THIS_PYTHON, "acp"]
    extra = shlex.split(env.get(ARGS_VARIABLE, ""))
    if env.get(GATEWAY_VARIABLE) and not any(a.startswith("--gateway") for a in extra):
        extra = ["--gateway", "auto", *extra]
    return argv + extra


class ShardAcpPersona(BaseAcpPersona):  # pyright: ignore[reportUntypedBaseClass]
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, executable=shard_acp_command(), **kwargs)  # pyright: ignore[reportUnknownMemberType]

    @property
    def defaults(self) -> Any:
        return PersonaDefaults(
            name="Shard",
            description="Shard, the coding agent that lives in Jupyter, over ACP: its "
            "permission gate and its durable session.",
            avatar_path=str(AVATAR),
            system_prompt="unused",
        )

    async def is_authed(self) -> bool:
        return True  # Shard reads its provider keys itself (its config, the environment)
