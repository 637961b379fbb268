"""Finding and naming gateway agents without a network: URL parsing, name/id resolution."""

from __future__ import annotations

import os

import pytest

from shard_core.protocol import AgentInfo
from shard_kernel.remote import GatewayError, GatewayLink, NoGatewayError, link
from shard_kernel.remote.hub import resolve
from shard_kernel.remote.link import parse_url


@pytest.mark.parametrize(
    ("raw", "url", "token"),
    [
        ("http://127.0.0.1:8888", "http://127.0.0.1:8888/", None),
        ("127.0.0.1:8888/", "http://127.0.0.1:8888/", None),
        ("https://lab.example.org/user/me/", "https://lab.example.org/user/me/", None),
        ("http://localhost:8888/lab?token=abc123", "http://localhost:8888/", "abc123"),
        ("http://localhost:8888/tree/?token=t&x=1", "http://localhost:8888/", "t"),
    ],
)
def test_urls_become_a_base_url_and_a_token(raw: str, url: str, token: str | None) -> None:
    assert parse_url(raw) == (url, token)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("ftp://host/", "is not a gateway URL"),
        ("http://", "is not a gateway URL"),
        ("http://host:99999/", "has a bad port"),
    ],
)
def test_bad_urls_say_what_to_give(raw: str, message: str) -> None:
    with pytest.raises(GatewayError, match=message):
        parse_url(raw)


def test_the_token_never_shows_in_the_link() -> None:
    link = GatewayLink("http://127.0.0.1:8888/", "secret-token-value")
    assert "secret-token-value" not in repr(link) + str(link)


def info(agent_id: str, name: str) -> AgentInfo:
    return AgentInfo(
        id=agent_id,
        name=name,
        cwd="/w",
        model="m",
        mode="build",
        status="idle",
        runtime_state="running",
        created=1.0,
    )


AGENTS = [info("agent-aaa111", "alpha"), info("agent-bbb222", "alpine"), info("agent-ccc333", "x")]


@pytest.mark.parametrize(
    ("key", "found"),
    [
        ("agent-aaa111", "agent-aaa111"),
        ("alpine", "agent-bbb222"),
        ("agent-c", "agent-ccc333"),
        ("alph", "agent-aaa111"),
        ("x", "agent-ccc333"),
    ],
)
def test_an_agent_is_found_by_id_name_or_unique_prefix(key: str, found: str) -> None:
    assert resolve(AGENTS, key, "http://gw/").id == found


def test_unknown_and_ambiguous_keys_are_clear_errors() -> None:
    with pytest.raises(GatewayError, match=r"no agent 'zed' on the gateway at http://gw/"):
        resolve(AGENTS, "zed", "http://gw/")
    with pytest.raises(GatewayError) as caught:
        resolve(AGENTS, "al", "http://gw/")
    assert str(caught.value) == (
        "'al' is ambiguous: it could be alpha (agent-aaa111), alpine (agent-bbb222); "
        "give the whole name or id"
    )


async def test_the_notebooks_own_server_is_found_before_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Several Jupyter servers with Shard run: the one that started this kernel wins."""
    servers = [
        {"url": "http://127.0.0.1:9001/", "port": 9001, "pid": 1, "token": "a"},
        {"url": "http://127.0.0.1:9002/", "port": 9002, "pid": os.getppid(), "token": "b"},
    ]
    monkeypatch.delenv("SHARD_GATEWAY_URL", raising=False)
    monkeypatch.setattr(link, "_running_servers", lambda runtime_dir: servers)

    async def answers(candidate: GatewayLink) -> bool:
        return True

    monkeypatch.setattr(link, "_probe", answers)
    found = await link.find_gateway()
    assert (found.url, found.token, found.source) == ("http://127.0.0.1:9002/", "b", "discovered")

    monkeypatch.setattr(link, "_running_servers", lambda runtime_dir: [])
    with pytest.raises(NoGatewayError, match="no Shard gateway found"):
        await link.find_gateway()
