"""ShardAcpAgent: the ACP agent side of `shard acp`, on the `agent-client-protocol` SDK.

Each `session/new` builds a Shard agent with `shard_core.sdk.create_agent`, the bootstrap
`shard run` uses (rules, modes, compaction, recall, skills, the code index, the sandbox, the
notebook tools), with the host's MCP servers added to the user's through the MCP capability
(namespaced `mcp__<server>__<tool>`, gated like any other). The ACP session id is Shard's
session id, so `session/load` and `session/list` read Shard's own logs.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import PROTOCOL_VERSION
from acp.exceptions import RequestError
from acp.interfaces import Client
from acp.schema import (
    AcpMcpServer,
    AgentCapabilities,
    ClientCapabilities,
    HttpMcpServer,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    McpServerStdio,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SessionCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SetSessionModeResponse,
    SseMcpServer,
)

from shard_core import __version__
from shard_core.engine.state import shard_home

if TYPE_CHECKING:
    from shard_core.protocol import AgentInfo
    from shard_kernel.acp.gateway import GatewaySession
    from shard_kernel.acp.session import AcpSession, ContentBlock
    from shard_kernel.remote.link import GatewayLink

# `initialize` needs the ACP SDK and nothing of Shard's engine: the engine (shard_core.sdk, the
# entry models, the tools, the providers), the gateway client and the session modules are
# imported by the methods that make, read or drive a session, after the host's first message is
# answered (tests/unit/architecture/test_import_budget.py names what initialize loads).

_log = logging.getLogger("shard.acp")

McpServer = HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio
LIST_PAGE = 50


@dataclass
class AcpOptions:
    """What `shard acp` was started with; every session it opens uses them."""

    model: str | None = None
    mode: str | None = None
    allow: list[str] = field(default_factory=list[str])
    deny: list[str] = field(default_factory=list[str])
    agent_definition: str | None = None
    trust_project: bool = False
    home: Path | None = None
    gateway: str | None = None
    """a gateway's URL (its sessions are gateway agents), "auto" for a running one if any,
    or None: every session is an agent in this process"""
    token: str | None = None


def host_servers(servers: list[McpServer] | None) -> dict[str, dict[str, Any]]:
    """The host's MCP servers as `mcpServers` entries (the shape config.json uses)."""
    out: dict[str, dict[str, Any]] = {}
    for server in servers or []:
        if isinstance(server, McpServerStdio):
            entry: dict[str, Any] = {"command": server.command, "args": list(server.args)}
            if server.env:
                entry["env"] = {v.name: v.value for v in server.env}
        elif isinstance(server, HttpMcpServer | SseMcpServer):
            entry = {"type": server.type, "url": server.url}
            if server.headers:
                entry["headers"] = {h.name: h.value for h in server.headers}
        else:
            raise RequestError.invalid_params(
                {"message": f"MCP server {server.name!r}: ACP-transport servers are not supported"}
            )
        if server.name in out:
            raise RequestError.invalid_params(
                {"message": f"two MCP servers are named {server.name!r}"}
            )
        out[server.name] = entry
    return out


def _checked_cwd(cwd: str) -> Path:
    path = Path(cwd)
    if not path.is_absolute():
        raise RequestError.invalid_params({"message": f"cwd must be an absolute path: {cwd!r}"})
    if not path.is_dir():
        raise RequestError.invalid_params(
            {"message": f"cwd {cwd} does not exist or is not a directory"}
        )
    return path


class ShardAcpAgent:
    """One `shard acp` process: any number of sessions, each a Shard agent."""

    def __init__(self, options: AcpOptions) -> None:
        self.options = options
        self.client: Client | None = None
        self.client_capabilities = ClientCapabilities()
        self.host_name = "ACP host"
        self.initialized = False
        self.sessions: dict[str, AcpSession | GatewaySession] = {}
        self._gateway: GatewayLink | None = None
        self._gateway_checked = False

    def on_connect(self, conn: Client) -> None:
        self.client = conn

    @property
    def home(self) -> Path:
        return (self.options.home or shard_home()).expanduser()

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        self.initialized = True
        if client_capabilities is not None:
            self.client_capabilities = client_capabilities
        if client_info is not None:
            self.host_name = client_info.title or client_info.name
        _log.info("acp: initialize from %s (protocol %s)", self.host_name, protocol_version)
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(
                    image=True, audio=False, embedded_context=True
                ),
                mcp_capabilities=McpCapabilities(http=True, sse=True),
                session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
            ),
            agent_info=Implementation(name="shard", title="Shard", version=__version__),
            auth_methods=[],
        )

    def _need_init(self) -> Client:
        if not self.initialized or self.client is None:
            raise RequestError.invalid_request({"message": "call initialize first"})
        return self.client

    async def gateway(self) -> GatewayLink | None:
        """The gateway sessions go to: --gateway URL (an error when it cannot be reached), a
        found one for "auto" (else None, said once on stderr), None without --gateway."""
        wanted = self.options.gateway
        if wanted is None or self._gateway_checked:
            return self._gateway
        from shard_kernel.remote.link import GatewayError, NoGatewayError, connect, find_gateway

        try:
            if wanted == "auto":
                self._gateway = await find_gateway()
            else:
                self._gateway = await connect(wanted, self.options.token)
        except NoGatewayError:
            _log.warning("acp: no Shard gateway found: sessions run in this process")
        except GatewayError as exc:
            if wanted != "auto":
                raise RequestError.internal_error(
                    {"message": f"the gateway {wanted} cannot be used: {exc}"}
                ) from None
            _log.warning("acp: the gateway found cannot be used (%s): sessions run here", exc)
        self._gateway_checked = True
        if self._gateway is not None:
            _log.info("acp: sessions are agents of the gateway at %s", self._gateway.url)
        return self._gateway

    async def _open_remote(
        self, link: GatewayLink, cwd: str, servers: list[McpServer] | None, goal: str | None
    ) -> GatewaySession:
        root = _checked_cwd(cwd)
        body: dict[str, Any] = {
            "cwd": str(root),
            "mode": self.options.mode or "build",
            "permissions": {"allow": self.options.allow, "deny": self.options.deny},
            "name": f"acp-{root.name}"[:60] or "acp",
        }
        if self.options.model:
            body["model"] = self.options.model
        if self.options.agent_definition:
            body["agent"] = self.options.agent_definition
        if goal:
            body["goal"] = goal
        if servers:  # the gateway agent's kernel adds them to its config's, as a session here
            body["mcp_servers"] = host_servers(servers)
        from shard_kernel.remote.link import GatewayError

        try:
            info = await link.create(body)
        except GatewayError as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from None
        return await self._attach_remote(link, info, history=False)

    async def _attach_remote(
        self, link: GatewayLink, info: AgentInfo, *, history: bool
    ) -> GatewaySession:
        from shard_kernel.acp.gateway import GatewaySession
        from shard_kernel.remote.link import GatewayError

        session = GatewaySession(info, link, self._need_init(), self.host_name, history=history)
        try:
            await session.open()
        except GatewayError as exc:
            raise RequestError.internal_error({"message": str(exc)}) from None
        self.sessions[session.session_id] = session
        return session

    def _session(self, session_id: str) -> AcpSession | GatewaySession:
        self._need_init()
        found = self.sessions.get(session_id)
        if found is None:
            raise RequestError.invalid_params(
                {"message": f"unknown session {session_id!r}: start one with session/new "
                 "or load it with session/load"}
            )  # fmt: skip
        return found

    async def _open(
        self,
        cwd: str,
        servers: list[McpServer] | None,
        resume: str | None = None,
        goal: str | None = None,
    ) -> AcpSession:
        from shard_core.engine.config import load_config
        from shard_core.sdk import create_agent
        from shard_core.types.errors import ShardError
        from shard_kernel.acp.files import AcpFiles
        from shard_kernel.acp.permissions import AcpAsker
        from shard_kernel.acp.questions import form_elicitation
        from shard_kernel.acp.session import AcpSession
        from shard_kernel.notebook_tools import NotebookSetup, notebook_extension

        client = self._need_init()
        root = _checked_cwd(cwd)
        extra = host_servers(servers)
        config = load_config()
        if extra:
            config = config.model_copy(update={"mcp_servers": {**config.mcp_servers, **extra}})
        asker = AcpAsker("", client, self.host_name, flush=_nothing)
        asker.elicitation = form_elicitation(self.client_capabilities)
        files = AcpFiles(client, "", self.client_capabilities)
        diagnostics: list[str] = []
        try:
            agent = await create_agent(
                cwd=root,
                model=self.options.model,
                mode=self.options.mode,
                agent_definition=self.options.agent_definition,
                allow=self.options.allow,
                deny=self.options.deny,
                trust_project=self.options.trust_project,
                home=self.options.home,
                resume=resume,
                goal=goal,
                agent_id=_agent_of(self.home, resume) if resume else None,
                config=config,
                ui=asker,
                files=files if files.can_read or files.can_write else None,
                has_responder=lambda: self.client is not None,
                diagnostics=diagnostics,
                extensions=[notebook_extension(NotebookSetup.from_env(os.environ))],
            )
        except ShardError as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from None
        for line in diagnostics:
            _log.info("acp: note: %s", line)
        session_id = agent.session.store.session_id
        session = AcpSession(agent, client, session_id)
        asker.session_id = session_id
        files.session_id = session_id
        asker.agent = agent
        asker.flush = session.flush
        self.sessions[session_id] = session
        return session

    async def new_session(
        self,
        cwd: str,
        mcp_servers: list[McpServer] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> NewSessionResponse:
        from shard_kernel.acp.goal import requested_goal

        self._need_init()
        link = await self.gateway()
        if link is not None:
            remote = await self._open_remote(link, cwd, mcp_servers, requested_goal(kwargs))
            remote.send(await remote.commands())
            return NewSessionResponse(session_id=remote.session_id, modes=remote.modes())
        session = await self._open(cwd, mcp_servers, goal=requested_goal(kwargs))
        session.send(session.commands())
        return NewSessionResponse(session_id=session.session_id, modes=session.modes())

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[McpServer] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> LoadSessionResponse:
        self._need_init()
        if session_id in self.sessions:
            raise RequestError.invalid_params(
                {"message": f"session {session_id!r} is already open in this process"}
            )
        link = await self.gateway()
        if link is not None:
            from shard_kernel.remote.link import GatewayError

            _checked_cwd(cwd)
            try:
                info = await link.attach(session_id)
            except GatewayError as exc:
                raise RequestError.invalid_params(
                    {"message": f"no gateway agent {session_id!r} at {link.url}: {exc}"}
                ) from None
            remote = await self._attach_remote(link, info, history=True)
            remote.send(await remote.commands())
            await remote.flush()
            return LoadSessionResponse(modes=remote.modes())
        from shard_core.engine.session_store import find_session
        from shard_core.types.errors import ShardError

        try:
            find_session(self.home, session_id)
        except ShardError as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from None
        session = await self._open(cwd, mcp_servers, resume=session_id)
        session.replay()
        session.send(session.commands())
        await session.flush()
        return LoadSessionResponse(modes=session.modes())

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        self._need_init()
        link = await self.gateway()
        if link is not None:
            return await _remote_sessions(link, cwd, cursor)
        from shard_core.engine.recall.catalog import catalog

        infos = catalog(self.home)
        if cwd is not None:
            wanted = str(Path(cwd).resolve())
            infos = [i for i in infos if i.workspace and str(Path(i.workspace)) == wanted]
        infos.sort(key=lambda i: i.last_activity, reverse=True)
        return _listed(
            [(i.session_id, i.workspace or "", i.title, i.last_activity) for i in infos], cursor
        )

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse:
        from shard_core.types.errors import ShardError
        from shard_kernel.acp.gateway import GatewaySession

        session = self._session(session_id)
        if isinstance(session, GatewaySession):
            await session.set_mode(mode_id)
            return SetSessionModeResponse()
        try:
            session.set_mode(mode_id)
        except ShardError as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from None
        await session.flush()
        return SetSessionModeResponse()

    async def prompt(
        self, session_id: str, prompt: list[ContentBlock], **kwargs: Any
    ) -> PromptResponse:
        return await self._session(session_id).prompt(prompt)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is None:
            _log.warning("acp: session/cancel for unknown session %r", session_id)
            return
        from shard_kernel.acp.gateway import GatewaySession

        if isinstance(session, GatewaySession):
            await session.cancel()
            return
        session.cancel()

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        raise RequestError.invalid_params(
            {"message": f"shard acp has no authentication methods (asked for {method_id!r}); "
             "models are configured with keys in the environment or config.json"}
        )  # fmt: skip

    async def close(self) -> None:
        for session in list(self.sessions.values()):
            await session.close()
        self.sessions.clear()


async def _nothing() -> None:
    return None


async def _remote_sessions(
    link: GatewayLink, cwd: str | None, cursor: str | None
) -> ListSessionsResponse:
    """The gateway's agents as sessions (of `cwd` when given), newest first, paged."""
    from shard_kernel.remote.link import GatewayError

    try:
        agents = await link.agents()
    except GatewayError as exc:
        raise RequestError.internal_error({"message": str(exc)}) from None
    if cwd is not None:
        wanted = str(Path(cwd).resolve())
        agents = [a for a in agents if str(Path(a.cwd).resolve()) == wanted]
    agents.sort(key=lambda a: a.created, reverse=True)
    return _listed([(a.id, a.cwd, a.title or a.name, a.created) for a in agents], cursor)


def _listed(
    sessions: list[tuple[str, str, str | None, float]], cursor: str | None
) -> ListSessionsResponse:
    """One page of (id, cwd, title, last activity), newest first; the cursor is an offset."""
    if cursor is not None and not cursor.isdigit():
        raise RequestError.invalid_params({"message": f"unknown cursor {cursor!r}"})
    start = int(cursor) if cursor else 0
    following = start + LIST_PAGE
    return ListSessionsResponse(
        sessions=[
            SessionInfo(
                session_id=session_id,
                cwd=cwd,
                title=title,
                updated_at=dt.datetime.fromtimestamp(when, dt.UTC).isoformat(),
            )
            for session_id, cwd, title, when in sessions[start:following]
        ],
        next_cursor=str(following) if following < len(sessions) else None,
    )


def _agent_of(home: Path, session_id: str) -> str | None:
    """The agent id a session was written by (its grants are that agent's)."""
    from shard_core.engine.recall.catalog import session_info
    from shard_core.engine.session_store import find_session

    return session_info(find_session(home, session_id)).agent_id


__all__ = ["AcpOptions", "ShardAcpAgent"]
