"""The agent's terminals by id: opening one (a server terminal under a local Jupyter server,
else a pty of the kernel's own), finding one by id or name, closing them all (the capability's
disposer), and the `/terminals` table and `/status` row.
"""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from shard_core.capabilities.commands import literal
from shard_core.capabilities.terminals.server import (
    ServerTerminal,
    TerminalServer,
    TerminalServerError,
)
from shard_core.capabilities.terminals.terminal import PtyTerminal, Terminal
from shard_core.contracts import ToolContext
from shard_core.tools.environment import tool_environment
from shard_core.tools.sandbox import Launch, Sandbox
from shard_core.tools.workspace import resolve_in_workspace
from shard_core.types import JsonObject, ToolResult

MAX_TERMINALS = 8


class Terminals:
    """The agent's terminals, by id; `close_all` is the capability's disposer."""

    def __init__(
        self, sandbox: Sandbox, server: TerminalServer | None = None, shell: str = "/bin/bash"
    ) -> None:
        self.sandbox = sandbox
        self.server = server
        """a local Jupyter server's terminals, when the agent runs under one"""
        self.shell = shell
        self.by_id: dict[str, Terminal] = {}
        self._count = 0
        self._status_dir: Path | None = None

    def get(self, input: JsonObject) -> Terminal | str:
        terminal_id = input.get("id")
        if not isinstance(terminal_id, str) or not terminal_id:
            return "`id` must name a terminal (terminal_list shows them)"
        found = self.by_id.get(terminal_id) or next(
            (t for t in self.by_id.values() if t.name == terminal_id), None
        )
        if found is None:
            known = ", ".join(self.by_id) or "none are open"
            return f"no terminal {terminal_id!r} ({known})"
        return found

    async def open(self, input: JsonObject, ctx: ToolContext) -> Terminal | str:
        alive = [t for t in self.by_id.values() if t.alive]
        if len(alive) >= MAX_TERMINALS:
            return f"{MAX_TERMINALS} terminals are open already: close one first"
        command = input.get("command")
        if command is not None and (not isinstance(command, str) or not command.strip()):
            return "`command` must be a command line (or left out for a shell)"
        where = input.get("cwd", ".")
        if not isinstance(where, str):
            return "`cwd` must be a folder in the workspace"
        cwd = resolve_in_workspace(where, ctx)
        if isinstance(cwd, ToolResult):
            return cwd.text
        if not cwd.is_dir():
            return f"{where} is not a folder"
        name = input.get("name")
        if name is not None and (not isinstance(name, str) or not name.strip()):
            return "`name` must be text"
        env = await tool_environment(
            os.environ if ctx.env is None else ctx.env, cwd, agent_id=ctx.agent_id
        )
        env["TERM"] = "xterm-256color" if self._served() else "xterm"
        argv = [self.shell, "-i"] if command is None else [self.shell, "-c", command]
        launch = await self.sandbox.launch(argv, replace(ctx, cwd=cwd), env)
        if isinstance(launch, str):
            return launch
        self._count += 1
        terminal_id = f"t{self._count}"
        shown = (name or terminal_id).strip(), command or self.shell
        try:
            if self._served():
                served = await self._serve(terminal_id, shown, launch, cwd, env, ctx.agent_id)
                if served is not None:
                    self.by_id[terminal_id] = served
                    return served
            terminal = PtyTerminal(terminal_id, *shown, launch.argv, cwd=cwd, env=env,
                                   sandbox=launch.sandbox, on_exit=launch.settle)  # fmt: skip
        except (OSError, TerminalServerError) as exc:
            return f"cannot start {command or self.shell}: {exc}"
        self.by_id[terminal_id] = terminal
        return terminal

    def _served(self) -> bool:
        return self.server is not None and not self.server.disabled

    async def _serve(
        self,
        terminal_id: str,
        shown: tuple[str, str],
        launch: Launch,
        cwd: Path,
        env: Mapping[str, str],
        agent_id: str,
    ) -> ServerTerminal | None:
        """The terminal as one of the server's (None: it has none); attached before it is
        returned, so no output is missed (terminado replays what came before)."""
        assert self.server is not None
        if self._status_dir is None:
            self._status_dir = Path(tempfile.mkdtemp(prefix="shard-terminals-"))
        status = self._status_dir / f"{terminal_id}.exit"
        owner = re.sub(r"\W", "", agent_id)[:12] or "agent"
        server_name = f"shard_{owner}_{terminal_id}_{secrets.token_hex(2)}"
        listed = {"agent_id": agent_id, "label": shown[0], "command": shown[1]}
        model = await self.server.open(server_name, launch.argv, cwd, env, status, listed)
        if model is None:
            return None
        terminal = ServerTerminal(self.server, model, status, terminal_id, *shown, cwd=cwd,
                                  sandbox=launch.sandbox, on_exit=launch.settle)  # fmt: skip
        try:
            await terminal.attach()
        except Exception as exc:  # tornado's own errors too: the tool says why, nothing is left
            await terminal.close(grace=0.2)
            raise TerminalServerError(0, f"cannot attach to the server's terminal: {exc}") from None
        return terminal

    async def close_all(self) -> None:
        await asyncio.gather(*(t.close(grace=0.2) for t in self.by_id.values()))
        if self._status_dir is not None:
            shutil.rmtree(self._status_dir, ignore_errors=True)


def status_line(terminals: Terminals) -> str:
    """The terminals as one `/status` cell: `t1 server (running: npm run dev); t2 ...`."""
    if not terminals.by_id:
        return "none"
    return "; ".join(
        f"{t.id} {literal(t.name)} ({t.state}: {literal(t.command)})"
        for t in terminals.by_id.values()
    )


def table(terminals: Terminals) -> str:
    if not terminals.by_id:
        return "no terminals are open"
    return "\n".join(
        f"{t.id}  {t.name}  {t.state}  {t.command}  (in {Path(t.cwd)})"
        for t in terminals.by_id.values()
    )
