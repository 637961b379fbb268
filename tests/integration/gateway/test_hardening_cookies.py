"""Issue 20 item 8: rotating the token logs everyone out — a login cookie from the old token is
refused after `shard gateway` restarts, unless a cookie secret (file) is configured."""

from __future__ import annotations

import argparse
import sys
from http.cookies import SimpleCookie

from tornado.httpclient import HTTPResponse

from shard_kernel.commands.gateway import register
from tests.integration.gateway.conftest import Server, Servers, api, free_port, start_process

TOKEN_A = "token-a-7d2e91c4b0f35a68"
TOKEN_B = "token-b-1c8f04e7a2d9b356"


def start_on(servers: Servers, port: int, token: str, *args: str) -> Server:
    """`shard gateway` on a given port (the login cookie's name includes the port)."""
    argv = [sys.executable, "-m", "shard_kernel.gateway", "--port", str(port)]
    argv += ["--token", token, "--allow-root", *args]
    log = servers.root / f"server-{len(servers.started)}.log"
    server = start_process(argv, servers.env, log, port, token)
    servers.started.append(server)
    return server


async def login_cookie(server: Server) -> str:
    """What a browser keeps after opening the server's URL with `?token=`."""
    response = await api(server, "GET", f"/api/status?token={server.token}", token=None)
    assert response.code == 200, response.body
    jar = SimpleCookie()
    for header in response.headers.get_list("Set-Cookie"):
        jar.load(header)
    (name,) = [n for n in jar if n.startswith("username-")]
    return f"{name}={jar[name].value}"


async def with_cookie(server: Server, cookie: str) -> HTTPResponse:
    return await api(server, "GET", "/shard/api/agents", token=None, headers={"Cookie": cookie})


async def test_an_old_tokens_cookie_is_refused_after_a_restart_with_a_new_token(
    servers: Servers,
) -> None:
    port = free_port()
    first = start_on(servers, port, TOKEN_A)
    cookie = await login_cookie(first)
    assert (await with_cookie(first, cookie)).code == 200  # the cookie alone logs in
    assert first.stop() == []
    second = start_on(servers, port, TOKEN_B)
    refused = await with_cookie(second, cookie)
    assert refused.code == 403, refused.body
    assert (await api(second, "GET", "/shard/api/agents", token=TOKEN_B)).code == 200
    runtime = servers.root / "jruntime"
    assert not (runtime / "jupyter_cookie_secret").exists()  # never written


async def test_a_configured_cookie_secret_file_keeps_logins_across_restarts(
    servers: Servers,
) -> None:
    secret_file = servers.root / "cookie-secret"
    secret_file.write_bytes(b"a-secret-kept-on-purpose")
    keep = ("--set", f"ServerApp.cookie_secret_file={secret_file}")
    port = free_port()
    first = start_on(servers, port, TOKEN_A, *keep)
    cookie = await login_cookie(first)
    assert first.stop() == []
    second = start_on(servers, port, TOKEN_B, *keep)
    # what every restart did before: the secret survives, so even a rotated token's cookie does
    assert (await with_cookie(second, cookie)).code == 200


def test_the_help_says_how_long_a_login_lasts() -> None:
    parser = argparse.ArgumentParser(prog="shard")
    commands = parser.add_subparsers(dest="command")
    register(commands)
    text = commands.choices["gateway"].format_help()  # what `shard gateway --help` prints
    assert "each start makes a new cookie secret" in " ".join(text.split())
    assert "ServerApp.cookie_secret_file" in text
