"""REST handlers under `/shard/api/agents`: list, create, status, rename, kill, attach, event
history; `/shard/api/usage`, the usage history; and `/shard/api/defaults`, the model a new agent
gets when its create names none (and why), which the New agent form shows before anything is made.

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
from tornado import web

from shard_core.engine.state import shard_home
from shard_core.engine.usage_history import USAGE_FILE, read_usage
from shard_core.types.errors import ConfigError
from shard_kernel.agent_defaults import default_model
from shard_kernel.commands.usage import GROUPS, group, parse_since, usage_row
from shard_kernel.gateway.history import MAX_LIMIT
from shard_kernel.gateway.kernel_command import KernelCommandError, parse_title, set_title
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


def _clip(text: str) -> str:
    return text[:80] + ("…" if len(text) > 80 else "")


ROUTES: tuple[tuple[str, type[ShardAPIHandler]], ...] = (
    (r"/shard/api/agents", AgentsHandler),
    (rf"/shard/api/agents/{AGENT}", AgentHandler),
    (rf"/shard/api/agents/{AGENT}/attach", AttachHandler),
    (rf"/shard/api/agents/{AGENT}/events", EventsHandler),
    (r"/shard/api/usage", UsageHandler),
    (r"/shard/api/defaults", DefaultsHandler),
)
"""Every route the extension serves (path relative to base_url, handler); tests audit each."""
