"""Security baseline: every route needs the token, Origins match exactly, unsafe binds are refused,
and the jupyter-config file enables the extension in a plain `jupyter server`."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from tornado.httpclient import HTTPClientError, HTTPRequest
from tornado.websocket import websocket_connect

from shard_core.types.errors import ConfigError
from shard_kernel.commands.gateway import register
from shard_kernel.gateway.client import KernelSocket
from shard_kernel.gateway.grants import GRANT_ROUTES
from shard_kernel.gateway.handlers import AGENT, ROUTES
from shard_kernel.gateway.security import (
    Redactor,
    check_bind,
    normalize_origin,
    origin_config,
)
from tests.integration.gateway.conftest import (
    TOKEN,
    Server,
    Servers,
    api,
    body,
    free_port,
    start_process,
)

REPO = Path(__file__).resolve().parents[3]
METHODS = ("get", "post", "put", "patch", "delete", "head", "options")
EXPECTED_ROUTES: dict[str, set[str]] = {
    "/shard/api/agents": {"get", "post"},
    f"/shard/api/agents/{AGENT}": {"get", "patch", "delete"},
    f"/shard/api/agents/{AGENT}/attach": {"post"},
    f"/shard/api/agents/{AGENT}/events": {"get"},
    f"/shard/api/agents/{AGENT}/rewind": {"get", "post"},
    "/shard/api/usage": {"get"},
    "/shard/api/defaults": {"get"},
    "/shard/api/grants": {"get", "delete"},
}
"""Every route and method the extension serves, each decided: token required. A new route or
method fails test_every_route_is_decided until it is added here (and so audited below)."""


def test_every_route_is_decided() -> None:
    served = {
        path: {m for m in METHODS if m in vars(handler)}
        for path, handler in (*ROUTES, *GRANT_ROUTES)
    }
    assert served == EXPECTED_ROUTES


async def test_every_route_refuses_a_missing_or_wrong_token(
    servers: Servers, workspace: Path
) -> None:
    server = servers.start()
    created = await api(server, "POST", "/shard/api/agents", {"cwd": str(workspace)})
    agent_id = body(created)["id"]
    wrong = {
        "no token": {},
        "wrong header": {"Authorization": "token not-the-token-at-all"},
        "wrong bearer": {"Authorization": "Bearer not-the-token-at-all"},
    }
    for path, methods in EXPECTED_ROUTES.items():
        url = path.replace(AGENT, agent_id)
        for method in sorted(methods):
            for label, headers in wrong.items():
                response = await api(server, method.upper(), url, token=None, headers=headers)
                assert response.code in (401, 403), (method, url, label, response.code)
            query = await api(server, method.upper(), f"{url}?token=wrong-token", token=None)
            assert query.code in (401, 403), (method, url, "wrong query token")
            if method != "delete":
                ok = await api(server, method.upper(), url)  # the handler answers, for real
                assert ok.code in (200, 400), (method, url, ok.code)
    listed = body(await api(server, "GET", "/shard/api/agents"))["agents"]
    assert [a["runtime_state"] for a in listed] == ["running"]  # the refused DELETEs did nothing


async def ws_handshake(server: Server, kernel_id: str, headers: dict[str, str]) -> int:
    """The WebSocket handshake's status: 101 when it opened (then closed at once)."""
    url = f"ws://127.0.0.1:{server.port}/api/kernels/{kernel_id}/channels?session_id=probe"
    try:
        conn = await websocket_connect(HTTPRequest(url, headers=headers))
    except HTTPClientError as exc:
        return exc.code
    await KernelSocket(conn, "probe").aclose()  # the handshake done before the test's loop ends
    return 101


async def test_origins_match_exactly_on_websockets_and_rest(
    servers: Servers, workspace: Path
) -> None:
    server = servers.start(
        "--allow-origin", "https://lab.example.org", "--allow-origin", "http://localhost:5173"
    )
    created = body(await api(server, "POST", "/shard/api/agents", {"cwd": str(workspace)}))
    kernel = created["kernel_id"]
    auth = {"Authorization": f"token {TOKEN}"}
    refused = [
        "https://evil.example",
        "http://127.0.0.1.evil.com",
        "null",
        f"http://127.0.0.1:{server.port + 1}",
        "https://lab.example.org.evil.com",
        "https://evil-lab.example.org",
        "http://lab.example.org",
        "http://localhost:51730",
    ]
    for origin in refused:
        assert await ws_handshake(server, kernel, {**auth, "Origin": origin}) == 403, origin
        rest = await api(server, "GET", "/shard/api/agents", headers={"Origin": origin})
        assert rest.code in (403, 404), (origin, rest.code)
        assert b"agent-" not in rest.body
    assert await ws_handshake(server, kernel, {}) == 403  # no Origin and no token
    accepted = [
        "https://lab.example.org",
        "http://localhost:5173",
        f"http://127.0.0.1:{server.port}",
    ]
    for origin in accepted:
        assert await ws_handshake(server, kernel, {**auth, "Origin": origin}) == 101, origin
        rest = await api(server, "GET", "/shard/api/agents", headers={"Origin": origin})
        assert rest.code == 200, origin
    assert await ws_handshake(server, kernel, auth) == 101  # a script: token, no Origin


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (["--ip", "0.0.0.0"], "without a token"),
        (["--ip", "0.0.0.0", "--token", "t0ken-long-enough"], "exact origins"),
        (["--ip", "10.1.2.3", "--allow-origin", "https://a.example"], "without a token"),
        (["--allow-origin", "null"], "'null' is not allowed"),
        (["--allow-origin", "*"], "is not allowed"),
        (["--allow-origin", "https://a.example/path"], "nothing after it"),
    ],
)
def test_unsafe_setups_are_refused_with_a_reason(args: list[str], why: str, tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "shard_kernel.gateway", "--port", str(free_port()), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert run.returncode == 1
    assert why in run.stderr
    assert "Traceback" not in run.stderr


async def test_the_jupyter_config_file_enables_the_extension_in_jupyter_server(
    servers: Servers,
) -> None:
    config = REPO / "jupyter-config"
    assert json.loads(
        (config / "jupyter_server_config.d" / "shard_kernel.gateway.json").read_text()
    ) == {"ServerApp": {"jpserver_extensions": {"shard_kernel.gateway": True}}}
    port = free_port()
    env = {**servers.env, "JUPYTER_CONFIG_PATH": str(config)}
    argv = [
        sys.executable, "-m", "jupyter_server", "--no-browser", "--allow-root",
        f"--port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={TOKEN}",
    ]  # fmt: skip
    server = start_process(argv, env, servers.root / "plain.log", port, TOKEN)
    servers.started.append(server)
    assert body(await api(server, "GET", "/shard/api/agents")) == {"agents": []}
    assert (await api(server, "GET", "/shard/api/agents", token=None)).code in (401, 403)


# ---------------------------------------------------------------- the pieces, without a server


def test_origin_lists_become_exact_matches_only() -> None:
    assert origin_config([]) == {}
    assert origin_config(["HTTPS://Lab.Example.org:443/"]) == {
        "allow_origin": "https://lab.example.org"
    }
    pattern = origin_config(["https://a.example", "http://localhost:5173"])["allow_origin_pat"]
    matches = {
        o: re.fullmatch(pattern, o) is not None
        for o in (
            "https://a.example",
            "http://localhost:5173",
            "https://a.example.evil.com",
            "https://xa.example",
            "https://a-example",
            "http://localhost:51730",
            "null",
        )
    }
    assert matches == {
        "https://a.example": True,
        "http://localhost:5173": True,
        "https://a.example.evil.com": False,
        "https://xa.example": False,
        "https://a-example": False,
        "http://localhost:51730": False,
        "null": False,
    }


@pytest.mark.parametrize(
    "origin", ["null", "*", "", "file://x", "https://a.example/x", "a.example"]
)
def test_origins_that_are_not_exact_are_refused(origin: str) -> None:
    with pytest.raises(ConfigError):
        normalize_origin(origin)


def test_redactor_hides_known_secrets_and_secret_shapes() -> None:
    redactor = Redactor()
    redactor.add("server-token-1234567890", None, "short")
    redactor.add_environment({"ANTHROPIC_API_KEY": "sk-ant-abcdef123456", "HOME": "/root"})
    line = (
        "GET /x?token=abc123&other=1 Authorization: token zzzzzzzzzzzz "
        "server-token-1234567890 sk-ant-abcdef123456 sk-proj-ABCDEFGH12345 /root short"
    )
    assert redactor(line) == (
        "GET /x?token=[secret]&other=1 Authorization: token [secret] "
        "[secret] [secret] sk-[secret] /root short"
    )


def test_check_bind_allows_loopback_and_demands_token_and_origins_elsewhere() -> None:
    check_bind("127.0.0.1", None, [])
    check_bind("::1", None, [])
    check_bind("localhost", None, [])
    with pytest.raises(ConfigError, match="token"):
        check_bind("0.0.0.0", None, ["https://a.example"])
    with pytest.raises(ConfigError, match="origins"):
        check_bind("192.0.2.1", "t0ken-long-enough", [])
    check_bind("192.0.2.1", "t0ken-long-enough", ["https://a.example"])


def test_the_gateway_subcommand_registers_its_options() -> None:
    parser = argparse.ArgumentParser(prog="shard")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(
        ["gateway", "--port", "9999", "--allow-origin", "https://a.example", "--show-token",
         "--set", "GatewayClient.auth_token=x"]
    )  # fmt: skip
    assert (args.port, args.allow_origin, args.show_token, args.settings) == (
        9999, ["https://a.example"], True, ["GatewayClient.auth_token=x"],
    )  # fmt: skip
    assert args.ip == "127.0.0.1"
