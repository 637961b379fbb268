"""GatewayJobs: the subagent tools' HTTP client for the gateway's `/shard/api/jobs` routes.

The gateway hands the agent kernels it starts its URL and token as SHARD_GATEWAY_URL and
SHARD_GATEWAY_TOKEN (bash commands never see the token: `*_TOKEN` variables are removed from
their environment). Plain `urllib` in a worker thread: no Jupyter import, no dependency.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

if TYPE_CHECKING:
    import urllib.request

URL_VARIABLE = "SHARD_GATEWAY_URL"
TOKEN_VARIABLE = "SHARD_GATEWAY_TOKEN"
REQUEST_SECONDS = 30.0


class GatewayError(RuntimeError):
    """The gateway could not be reached, or refused the request (its message says why)."""


class GatewayJobs:
    def __init__(self, env: Mapping[str, str]) -> None:
        self.url = env.get(URL_VARIABLE, "").strip()
        self.token = env.get(TOKEN_VARIABLE, "").strip()

    def available(self) -> bool:
        return self.url.startswith(("http://", "https://"))

    async def launch(self, body: dict[str, Any]) -> dict[str, Any]:
        return await self._call("POST", "shard/api/jobs", body)

    async def get(self, parent: str, target: str) -> dict[str, Any]:
        return await self._call("GET", f"shard/api/jobs/{quote(target, safe='')}", query=parent)

    async def list(self, parent: str) -> dict[str, Any]:
        return await self._call("GET", "shard/api/jobs", query=parent)

    async def wait(
        self, parent: str, ids: list[str], seconds: float, every: bool
    ) -> dict[str, Any]:
        body = {"parent": parent, "ids": ids, "timeout": seconds, "all": every}
        return await self._call("POST", "shard/api/jobs/wait", body, seconds + REQUEST_SECONDS)

    async def control(self, action: str, parent: str, target: str, **fields: Any) -> dict[str, Any]:
        path = f"shard/api/jobs/{quote(target, safe='')}/{action}"
        return await self._call("POST", path, {"parent": parent, **fields})

    async def _call(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        seconds: float = REQUEST_SECONDS,
        query: str | None = None,
    ) -> dict[str, Any]:
        if not self.available():
            raise GatewayError(
                f"no gateway to run subagents ({URL_VARIABLE} is not set): subagents need an "
                "agent started by `shard gateway` or JupyterLab"
            )
        target = self.url.rstrip("/") + "/" + path
        if query is not None:
            target += "?" + urlencode({"parent": query})
        data = None if body is None else json.dumps(body).encode("utf-8")
        import urllib.request  # http.client and email: with the first call, not at boot

        request = urllib.request.Request(target, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", f"token {self.token}")
        return await asyncio.to_thread(_send, request, seconds)


def _send(request: urllib.request.Request, seconds: float) -> dict[str, Any]:
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(request, timeout=seconds) as response:
            return json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as exc:
        with exc:  # it holds the response's socket open until closed
            try:
                message = json.loads(exc.read() or b"{}").get("message")
            except ValueError:
                message = None
        raise GatewayError(message or f"the gateway answered {exc.code}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise GatewayError(f"the gateway could not be reached: {reason}") from None
