"""Issue 20 item 8: a create request with an unbounded number is refused (400 naming the field
and its range) and creates nothing."""

from __future__ import annotations

from pathlib import Path

from tests.integration.gateway.conftest import Servers, api, body
from tests.unit.gateway.test_hardening_validation import BAD, RANGE


async def test_each_bad_permission_timeout_is_refused_and_creates_nothing(
    servers: Servers, workspace: Path
) -> None:
    server = servers.start()
    for raw, shown in BAD.items():
        request = f'{{"cwd": "{workspace}", "permission_timeout": {raw}}}'.encode()
        response = await api(server, "POST", "/shard/api/agents", raw=request)
        assert (response.code, body(response)["message"]) == (400, RANGE + shown), raw
    listed = await api(server, "GET", "/shard/api/agents")
    assert body(listed)["agents"] == []
    assert not list((Path(server.env["SHARD_HOME"]) / "agents").glob("*"))
