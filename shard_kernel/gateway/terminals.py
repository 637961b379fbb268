"""`POST /shard/api/terminals`: an agent kernel's terminal made a jupyter_server terminal.

The kernel sends what to run (its sandboxed argv and its secret-free environment), where (a
folder), a name, and who it is (pid and start time); the server starts it on a terminado pty
through `tether.py`, so it is listed by `/api/terminals` and Lab's Running panel, a person can
open and type into it, and it ends with the kernel. The kernel reads and types through
`/terminals/websocket/NAME` like Lab does, and closes it with `DELETE /api/terminals/NAME`.
The terminal is listed with its agent (`AgentInfo.terminals`, the Shard sidebar) while it
runs, and people's windows decide its size (`terminal_sharing.py`).
A server without terminals (`shard gateway`'s default, `ServerApp.terminals_enabled=False`),
or one that cannot see the kernel's process (the tether could not watch it), answers 409 and
the kernel keeps a pty of its own.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from jupyter_server.auth.decorator import authorized
from tornado import web

from shard_core.protocol.orchestrator import AgentTerminal
from shard_kernel.gateway.handlers import ShardAPIHandler
from shard_kernel.gateway.terminal_sharing import share
from shard_kernel.gateway.tether import start_time
from shard_kernel.gateway.validation import BadRequestError, parse_json_object

TETHER = Path(__file__).with_name("tether.py")
NAME = re.compile(r"\w{1,64}")
"""what `/api/terminals/NAME` routes (`\\w+`)"""
NO_TERMINALS = "this server has no terminals (ServerApp.terminals_enabled is off)"
NOT_LOCAL = "no terminals for an agent this server cannot see (another machine or pid namespace)"
"""the kernel keeps a pty of its own on either 409"""


class AgentTerminalsHandler(ShardAPIHandler):
    auth_resource = "terminals"

    @web.authenticated
    @authorized
    async def post(self) -> None:
        manager = self.settings.get("terminal_manager")
        if manager is None:
            raise web.HTTPError(409, "%s", NO_TERMINALS)
        try:
            request = parse_terminal(parse_json_object(self.request.body))
        except BadRequestError as exc:
            raise web.HTTPError(400, "%s", str(exc)) from None
        owner = request["owner"]
        if start_time(owner["pid"]) != str(owner["start"]):  # the tether could not watch it
            raise web.HTTPError(409, "%s", NOT_LOCAL)
        if request["name"] in manager.terminals:
            raise web.HTTPError(409, "a terminal %s exists already", request["name"])
        argv = tethered(request)
        name = request["name"]
        model = manager.create(name=name, cwd=request["cwd"], shell_command=argv)
        term = manager.terminals[name]
        if list(term.ptyproc.argv)[1:] != argv[1:]:  # terminado ignored shell_command: fail closed
            await manager.terminate(name, force=True)
            raise web.HTTPError(500, "the server started another command than the agent's")
        registry, agent_id = self.registry, self._owning_agent(request)
        if agent_id is not None:
            shown = AgentTerminal(name=name, label=request["label"], command=request["command"])
            registry.add_terminal(agent_id, shown)

        def ended() -> None:
            if agent_id is not None:
                registry.drop_terminal(agent_id, name)

        share(term, ended)
        self.reply({**model, "pid": term.ptyproc.pid}, status=201)

    def _owning_agent(self, request: dict[str, Any]) -> str | None:
        """The registry agent whose kernel asked (its pid is the owner's), to list the terminal
        with it; None for a kernel the registry does not run (the terminal still works)."""
        agent_id = request.get("agent_id")
        if not isinstance(agent_id, str) or agent_id not in self.registry.manifests:
            return None
        return agent_id if self.registry.kernel_pid(agent_id) == request["owner"]["pid"] else None


def tethered(request: dict[str, Any]) -> list[str]:
    owner = request["owner"]
    env = json.dumps(request["env"], separators=(",", ":"))
    return [sys.executable, str(TETHER), str(owner["pid"]), str(owner["start"]),
            request["status_file"], env, "--", *request["argv"]]  # fmt: skip


def parse_terminal(body: dict[str, Any]) -> dict[str, Any]:
    """The create request checked field by field (a BadRequestError says what to fix)."""
    name, cwd, argv = body.get("name"), body.get("cwd"), body.get("argv")
    env, owner, status = body.get("env"), body.get("owner"), body.get("status_file")
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise BadRequestError("`name` must be 1-64 letters, digits or _")
    if not isinstance(cwd, str) or not Path(cwd).is_absolute() or not Path(cwd).is_dir():
        raise BadRequestError("`cwd` must be an absolute path to a folder")
    if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
        raise BadRequestError("`argv` must be a non-empty list of strings")
    if not isinstance(env, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in env.items()
    ):
        raise BadRequestError("`env` must map names to strings")
    if not isinstance(owner, dict) or not all(
        isinstance(owner.get(k), int) and owner[k] > 0 for k in ("pid", "start")
    ):
        raise BadRequestError("`owner` must be {pid, start}: the agent process")
    if not isinstance(status, str) or not Path(status).is_absolute():
        raise BadRequestError("`status_file` must be an absolute path")
    for shown in ("label", "command"):  # how the agent's sidebar row names it
        if not isinstance(body.setdefault(shown, name), str):
            raise BadRequestError(f"`{shown}` must be text")
    return body


TERMINAL_ROUTES: tuple[tuple[str, type[ShardAPIHandler]], ...] = (
    (r"/shard/api/terminals", AgentTerminalsHandler),
)
