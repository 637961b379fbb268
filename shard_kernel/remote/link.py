"""GatewayLink: where the gateway is (connect, environment, or a running Jupyter server) and its
agent registry over REST (`/shard/api/agents`). The token goes in a header and is never printed.

Every failure becomes a `GatewayError` that says what happened and what to do about it.
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import parse_qs, quote, urlsplit, urlunsplit

from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest, HTTPResponse

from shard_core.engine.plurals import counted
from shard_core.protocol import AgentInfo
from shard_core.types.errors import ShardError

ENV_URL = "SHARD_GATEWAY_URL"
ENV_TOKEN = "SHARD_GATEWAY_TOKEN"
API = "shard/api/agents"
TIMEOUT = 10.0
START_TIMEOUT = 90.0
"""Attaching to a stopped agent starts its kernel."""
PROBE_TIMEOUT = 3.0
HOW_TO_CONNECT = (
    "start one with `shard gateway` (or `jupyter lab` with Shard installed), then point at it "
    f"with `%shard connect URL --token TOKEN` or the {ENV_URL} and {ENV_TOKEN} variables"
)
Source = Literal["connect", "environment", "discovered"]


class GatewayError(ShardError):
    """The gateway could not be found, reached, or did not do what was asked."""


class GatewayUnreachableError(GatewayError):
    """No answer at all (refused, timed out): the gateway may be down or restarting."""


class NoGatewayError(GatewayError):
    """None was named (`%shard connect`, SHARD_GATEWAY_URL) and no running server has Shard."""


@dataclass(frozen=True)
class GatewayLink:
    url: str
    """The server's base URL, ending in `/`."""
    token: str | None = field(default=None, repr=False)
    source: Source = "connect"

    def __str__(self) -> str:
        return self.url

    # ------------------------------------------------------------ the registry

    async def agents(self) -> list[AgentInfo]:
        data = await self.request("GET", API)
        if not isinstance(data, dict) or not isinstance(data.get("agents"), list):
            raise GatewayError(f"{self.url} answered {API} with something other than agents")
        return [_info(item) for item in data["agents"]]

    async def agent(self, agent_id: str) -> AgentInfo:
        return _info(await self.request("GET", f"{API}/{quote(agent_id, safe='')}"))

    async def attach(self, agent_id: str) -> AgentInfo:
        """The agent with its kernel running (a stopped one is resumed)."""
        path = f"{API}/{quote(agent_id, safe='')}/attach"
        return _info(await self.request("POST", path, within=START_TIMEOUT))

    async def kill(self, agent_id: str) -> AgentInfo:
        return _info(await self.request("DELETE", f"{API}/{quote(agent_id, safe='')}"))

    async def create(self, command: dict[str, Any]) -> AgentInfo:
        """A new agent (an `agent_create` body: cwd, model, mode, name, permissions), running."""
        return _info(await self.request("POST", API, within=START_TIMEOUT, body=command))

    async def request(
        self, method: str, path: str, *, within: float = TIMEOUT, body: Any = None
    ) -> Any:
        response = await self._fetch(method, path, within, body)
        if response.code >= 400:
            raise GatewayError(self._refusal(method, path, response))
        try:
            return json.loads(response.body or b"null")
        except ValueError:
            raise GatewayError(f"{self.url} answered {path} with something not JSON") from None

    async def _fetch(self, method: str, path: str, within: float, body: Any) -> HTTPResponse:
        headers = {"Authorization": f"token {self.token}"} if self.token else {}
        data = json.dumps(body).encode() if body is not None else None
        if data is not None:
            headers["Content-Type"] = "application/json"
        request = HTTPRequest(
            self.url + path,
            method=method,
            headers=headers,
            body=data if data is not None else (b"" if method == "POST" else None),
            connect_timeout=min(within, TIMEOUT),
            request_timeout=within,
            follow_redirects=False,
        )
        client = AsyncHTTPClient(force_instance=True)
        try:
            return await client.fetch(request, raise_error=False)
        except HTTPClientError as exc:  # 599: timeouts and the like
            raise GatewayUnreachableError(
                f"the gateway at {self.url} did not answer: {exc.message}"
            ) from None
        except (TimeoutError, OSError) as exc:
            reason = (
                exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
            )
            raise GatewayUnreachableError(
                f"cannot reach the gateway at {self.url}: {reason}"
            ) from None
        finally:
            client.close()

    def _refusal(self, method: str, path: str, response: HTTPResponse) -> str:
        if response.code in (401, 403):
            return (
                f"the gateway at {self.url} refused the request (HTTP {response.code}): "
                f"check the token (%shard connect URL --token TOKEN, or {ENV_TOKEN})"
            )
        try:
            message = str(json.loads(response.body or b"{}").get("message") or "")
        except (ValueError, AttributeError):
            message = ""
        if response.code == 404 and not message:
            message = f"{path} not found: is the Shard extension enabled on this server?"
        return f"{method} {path}: HTTP {response.code}" + (f": {message}" if message else "")


def _info(data: Any) -> AgentInfo:
    if not isinstance(data, dict):
        raise GatewayError("the gateway answered with something other than an agent")
    known = {k: v for k, v in data.items() if k in AgentInfo.model_fields}
    return AgentInfo.model_validate(known)


# ------------------------------------------------------------ finding the gateway


def parse_url(raw: str) -> tuple[str, str | None]:
    """A base URL ending in `/`, and a token if the URL carried one (`?token=`)."""
    text = raw.strip()
    shown = text.split("?", 1)[0]  # never echo a query: it may hold the token
    if "://" not in text:
        text = "http://" + text
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise GatewayError(f"{shown!r} is not a gateway URL: give http(s)://host:port/")
    try:
        parts.port  # noqa: B018  (raises on a bad port)
    except ValueError:
        raise GatewayError(f"{shown!r} has a bad port") from None
    token = (parse_qs(parts.query).get("token") or [None])[0]
    path = parts.path
    for tail in ("/lab", "/tree", "/lab/", "/tree/"):  # a pasted JupyterLab address
        if path.endswith(tail):
            path = path[: -len(tail)]
    path = path.rstrip("/") + "/"
    return urlunsplit((parts.scheme, parts.netloc, path, "", "")), token


async def connect(url: str, token: str | None = None) -> GatewayLink:
    """A link to the gateway at `url`, checked by listing its agents."""
    base, url_token = parse_url(url)
    link = GatewayLink(base, token or url_token or os.environ.get(ENV_TOKEN) or None)
    await link.agents()
    return link


async def find_gateway(runtime_dir: str | None = None) -> GatewayLink:
    """$SHARD_GATEWAY_URL, else a running local Jupyter server whose `/shard/api/agents` answers:
    the one that started this kernel (the notebook's own server) before any other."""
    env_url = os.environ.get(ENV_URL)
    if env_url:
        base, url_token = parse_url(env_url)
        token = os.environ.get(ENV_TOKEN) or url_token
        link = GatewayLink(base, token, "environment")
        await link.agents()
        return link
    parent = os.getppid()  # jupyter_client launches a kernel as a child of its server
    servers = sorted(_running_servers(runtime_dir), key=lambda s: s.get("pid") != parent)
    candidates = [
        GatewayLink(parse_url(s["url"])[0], s.get("token") or None, "discovered")
        for s in servers
        if s.get("url") and s.get("port")
    ]
    answers = await asyncio.gather(*(_probe(c) for c in candidates))
    found = [link for link, ok in zip(candidates, answers, strict=True) if ok]
    if found:
        return found[0]
    seen = (
        f" ({counted(len(servers), 'running Jupyter server')} found, none with Shard's agent API)"
    )
    raise NoGatewayError(f"no Shard gateway found{seen if servers else ''}: {HOW_TO_CONNECT}")


def _running_servers(runtime_dir: str | None) -> list[dict[str, Any]]:
    from jupyter_server.serverapp import list_running_servers  # heavy: only when needed

    try:
        return [dict(info) for info in list_running_servers(runtime_dir)]
    except OSError:
        return []


async def _probe(link: GatewayLink) -> bool:
    try:
        await asyncio.wait_for(link.request("GET", API, within=PROBE_TIMEOUT), PROBE_TIMEOUT + 1)
    except (TimeoutError, GatewayError):
        return False
    return True
