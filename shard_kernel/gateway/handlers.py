"""REST handlers under `/shard/api/agents`: list, create, status, rename, kill, attach, event
history, rewind and review; `/shard/api/usage`, the usage history; and `/shard/api/defaults`, the
model a new agent gets when its create names none (and why), which the New agent form shows before
anything is made.

Every method is `@web.authenticated` and `@authorized` (resource `kernels`: an agent is a
kernel, so an authorizer that refuses kernels refuses agents too). Errors are JSON
`{"message": …}` saying what to fix — never a traceback, never a request header or token.
"""

from __future__ import annotations

import json
from http.client import responses
from typing import Any

from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from pydantic import ValidationError
from tornado import web

from shard_core.engine.state import shard_home
from shard_core.engine.usage_history import USAGE_FILE, read_usage
from shard_core.protocol.commands import RewindCommand
from shard_core.types.errors import ConfigError
from shard_kernel.agent_defaults import default_model
from shard_kernel.commands.usage import GROUPS, group, parse_since, usage_row
from shard_kernel.gateway.history import MAX_LIMIT
from shard_kernel.gateway.kernel_command import (
    KernelCommandError,
    parse_title,
    send_command,
    set_title,
)
from shard_kernel.gateway.registry import (
    AgentRegistry,
    NameTakenError,
    StartError,
    UnknownAgentError,
)
from shard_kernel.gateway.security import REDACTOR
from shard_kernel.gateway.validation import BadRequestError, parse_create, parse_json_object

AGENT = r"(?P<agent_id>[^/]+)"
SETTINGS_KEY = "shard_registry"
TRUST_KEY = "shard_trust_project"
"""`ShardGateway.trust_project`: the create check reads project files as the kernels will"""


class ShardAPIHandler(APIHandler):
    auth_resource = "kernels"

    def skip_check_origin(self) -> bool:
        """Check Origin even on token-authenticated requests (jupyter_server skips it there),
        wherever the extension runs; CORS preflights (OPTIONS) are never served here."""
        return False

    @property
    def registry(self) -> AgentRegistry:
        return self.settings[SETTINGS_KEY]

    def reply(self, data: Any, status: int = 200) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(data))

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        exc = kwargs.get("exc_info", (None, None, None))[1]
        message = responses.get(status_code, "error")
        if isinstance(exc, web.HTTPError) and exc.log_message:
            message = exc.log_message % exc.args if exc.args else exc.log_message
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({"message": REDACTOR(message), "status": status_code}))

    def agent_json(self, info: Any) -> dict[str, Any]:
        data = info.model_dump(mode="json")
        if info.kernel_id is not None:
            data["channels"] = url_path_join(
                self.base_url, "api/kernels", info.kernel_id, "channels"
            )
        return data

    async def info_or_404(self, agent_id: str) -> Any:
        try:
            return await self.registry.info(agent_id)
        except UnknownAgentError:
            raise web.HTTPError(404, "no agent %s", _clip(agent_id)) from None


class AgentsHandler(ShardAPIHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        infos = await self.registry.infos()
        self.reply({"agents": [self.agent_json(i) for i in infos]})

    @web.authenticated
    @authorized
    async def post(self) -> None:
        try:
            body = parse_json_object(self.request.body)
            command = parse_create(body, trusted=self.settings.get(TRUST_KEY))
            manifest = self.registry.create(command)
        except BadRequestError as exc:
            raise web.HTTPError(400, "%s", str(exc)) from None
        except NameTakenError as exc:
            raise web.HTTPError(409, "the name %s is taken: choose another", str(exc)) from None
        await _start_or_500(self.registry, manifest.id, created=True)
        info = await self.registry.info(manifest.id)
        self.set_header("Location", url_path_join(self.base_url, "shard/api/agents", info.id))
        self.reply(self.agent_json(info), status=201)


class AgentHandler(ShardAPIHandler):
    @web.authenticated
    @authorized
    async def get(self, agent_id: str) -> None:
        self.reply(self.agent_json(await self.info_or_404(agent_id)))

    @web.authenticated
    @authorized
    async def patch(self, agent_id: str) -> None:
        """`{"title": "…"}` names the agent's session (logged in the session, like /title)."""
        await self.info_or_404(agent_id)
        try:
            title = parse_title(parse_json_object(self.request.body))
            await set_title(self.registry, agent_id, title)
        except BadRequestError as exc:
            raise web.HTTPError(400, "%s", str(exc)) from None
        except KernelCommandError as exc:
            raise web.HTTPError(409, "%s", str(exc)) from None
        self.reply(self.agent_json(await self.registry.info(agent_id)))

    @web.authenticated
    @authorized
    async def delete(self, agent_id: str) -> None:
        await self.info_or_404(agent_id)
        await self.registry.kill(agent_id)
        self.reply(self.agent_json(await self.registry.info(agent_id)))


class AttachHandler(ShardAPIHandler):
    @web.authenticated
    @authorized
    async def post(self, agent_id: str) -> None:
        await self.info_or_404(agent_id)
        await _start_or_500(self.registry, agent_id, created=False)
        self.reply(self.agent_json(await self.registry.info(agent_id)))


class EventsHandler(ShardAPIHandler):
    @web.authenticated
    @authorized
    async def get(self, agent_id: str) -> None:
        await self.info_or_404(agent_id)
        since = self._int_argument("since", -1, minimum=-1)
        limit = self._int_argument("limit", 500, minimum=1, maximum=MAX_LIMIT)
        history = self.registry.history(agent_id)
        events, more = history.page(since, limit)
        self.reply(
            {
                "agent_id": agent_id,
                "events": events,
                "has_more": more,
                "last_seq": history.last_seq,
                "next_since": events[-1]["seq"] if events else since,
            }
        )

    def _int_argument(
        self, name: str, default: int, *, minimum: int, maximum: int | None = None
    ) -> int:
        raw = self.get_query_argument(name, None)
        if raw is None:
            return default
        try:
            value = int(raw)
        except ValueError:
            raise web.HTTPError(400, "%s must be an integer", name) from None
        if value < minimum or (maximum is not None and value > maximum):
            upper = f" and at most {maximum}" if maximum is not None else ""
            raise web.HTTPError(400, "%s must be at least %d%s", name, minimum, upper)
        return value


async def _start_or_500(registry: AgentRegistry, agent_id: str, *, created: bool) -> None:
    try:
        await registry.attach(agent_id)
    except StartError as exc:
        hint = "it was created; attach to retry" if created else "attach to retry"
        raise web.HTTPError(500, "%s (%s)", str(exc), hint) from None


class UsageHandler(ShardAPIHandler):
    """`GET /shard/api/usage?since=7d&by=day`: SHARD_HOME/usage.jsonl grouped (`shard usage`)."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        by = self.get_argument("by", "day")
        if by not in GROUPS:
            raise web.HTTPError(400, "by must be one of %s", ", ".join(GROUPS))
        try:
            since = parse_since(self.get_argument("since", "7d"))
        except ConfigError as exc:
            raise web.HTTPError(400, "%s", str(exc)) from None
        rows = group(read_usage(shard_home() / USAGE_FILE, since), by)
        self.reply({"by": by, "since": since, "rows": [usage_row(r) for r in rows]})


class DefaultsHandler(ShardAPIHandler):
    """`GET /shard/api/defaults`: `{"model": {model, source, why, demo}}` (agent_defaults.py)."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        chosen = default_model().to_json()
        chosen["model"] = REDACTOR(str(chosen["model"]))
        self.reply({"model": chosen})


class RewindHandler(ShardAPIHandler):
    """The agent's checkpoints (the panel's "Rewind to here" and "Changes"): `GET ?turn=N`
    reviews a turn (`view=list`: the turns), `POST` a `rewind` command body (`action`: rewind,
    undo, revert; `target`, `scope`, `choice`, `turn`, `path`, `hunk`, `cell`). The agent's
    kernel runs it, so every attached client sees the `rewind` event. 409 with the three
    versions when a person's edit waits for a choice."""

    async def _send(self, agent_id: str, body: dict[str, Any]) -> None:
        await self.info_or_404(agent_id)
        try:
            command = RewindCommand.model_validate({**body, "type": "rewind"})
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise web.HTTPError(400, "%s: %s", where, first["msg"]) from None
        if command.action == "rewind" and not command.target:
            raise web.HTTPError(400, "send a target: a turn number or an entry id")
        if command.action == "revert" and not command.path:
            raise web.HTTPError(400, "send the path of the file to revert")
        kernel_id = self.registry.kernel_id(agent_id)
        if kernel_id is None:
            raise web.HTTPError(
                409, "the agent is not running: attach to start it, or use shard session rewind"
            )
        payload = command.model_dump(mode="json", by_alias=True, exclude_none=True)
        try:
            reply = await send_command(self.registry.km, kernel_id, payload, within=60.0)
        except KernelCommandError as exc:
            raise web.HTTPError(504, "%s", str(exc)) from None
        self.reply(reply, status=200 if reply.get("ok") else 409)

    @web.authenticated
    @authorized
    async def get(self, agent_id: str) -> None:
        view = self.get_argument("view", "diff")
        if view not in ("diff", "list"):
            raise web.HTTPError(400, "view must be diff or list")
        body: dict[str, Any] = {"action": view}
        turn = self.get_argument("turn", None)
        if turn is not None:
            if not turn.isdigit():
                raise web.HTTPError(400, "turn must be a turn number")
            body["turn"] = int(turn)
        await self._send(agent_id, body)

    @web.authenticated
    @authorized
    async def post(self, agent_id: str) -> None:
        try:
            body = parse_json_object(self.request.body)
        except BadRequestError as exc:
            raise web.HTTPError(400, "%s", str(exc)) from None
        if body.get("action") in ("diff", "list"):
            raise web.HTTPError(400, "diff and list are GET requests")
        await self._send(agent_id, body)


def _clip(text: str) -> str:
    return text[:80] + ("…" if len(text) > 80 else "")


ROUTES: tuple[tuple[str, type[ShardAPIHandler]], ...] = (
    (r"/shard/api/agents", AgentsHandler),
    (rf"/shard/api/agents/{AGENT}", AgentHandler),
    (rf"/shard/api/agents/{AGENT}/attach", AttachHandler),
    (rf"/shard/api/agents/{AGENT}/events", EventsHandler),
    (rf"/shard/api/agents/{AGENT}/rewind", RewindHandler),
    (r"/shard/api/usage", UsageHandler),
    (r"/shard/api/defaults", DefaultsHandler),
)
"""Every route the extension serves (path relative to base_url, handler); tests audit each."""
