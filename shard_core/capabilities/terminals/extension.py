"""The terminals capability: six tools, `/terminals`, and every terminal closed at shutdown.

    await host.install("shard.terminals", TerminalsCapability(sandbox))

Each terminal's process runs under the same sandbox as bash (`Sandbox.launch`), so the shell a
model types into sees the workspace the way a bash command does. Under a local Jupyter server
(`env` names it: SHARD_GATEWAY_URL) a terminal is one of the server's (`server.py`), which a
person opens in Lab; else a pty of the agent's own. The disposer ends every terminal when the
agent closes; a killed agent's pty closes with its process and the shell gets SIGHUP, and a
server terminal's tether ends it when the agent's process ends.
"""

from __future__ import annotations

from collections.abc import Mapping

from shard_core.capabilities.terminals.registry import Terminals, status_line, table
from shard_core.capabilities.terminals.server import TerminalServer
from shard_core.capabilities.terminals.tools import (
    TerminalCloseTool,
    TerminalListTool,
    TerminalOpenTool,
    TerminalReadTool,
    TerminalSendTool,
    TerminalWaitTool,
)
from shard_core.contracts import Disposer, ExtensionApi
from shard_core.tools.sandbox import Sandbox


class TerminalsCapability:
    def __init__(
        self, sandbox: Sandbox | None = None, env: Mapping[str, str] | None = None
    ) -> None:
        server = None if env is None else TerminalServer.from_env(env)
        self.terminals = Terminals(sandbox or Sandbox(), server)

    def __call__(self, api: ExtensionApi) -> Disposer:
        tools = (TerminalOpenTool, TerminalSendTool, TerminalReadTool, TerminalWaitTool,
                 TerminalCloseTool, TerminalListTool)  # fmt: skip
        for tool in tools:
            api.register_tool(tool(self.terminals))
        api.register_command("terminals", "the agent's terminals: id, name, state, command",
                             lambda _args: table(self.terminals))  # fmt: skip
        api.register_status("terminals", lambda: status_line(self.terminals))
        return self.terminals.close_all
