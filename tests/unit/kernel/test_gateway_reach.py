"""KERNEL_SHARD_GATEWAY_URL/TOKEN: what the server sends a remote kernel, and how it adopts it."""

from __future__ import annotations

from shard_core.tools.environment import scrubbed_env
from shard_kernel.gateway_reach import adopt_kernel_gateway, kernel_gateway_env

SERVER = {"SHARD_GATEWAY_URL": "http://127.0.0.1:8888/", "SHARD_GATEWAY_TOKEN": "tok-abc"}


def test_the_server_sends_its_url_and_token_once_it_has_advertised_them() -> None:
    assert kernel_gateway_env({}) == {}
    assert kernel_gateway_env(SERVER) == {
        "KERNEL_SHARD_GATEWAY_URL": "http://127.0.0.1:8888/",
        "KERNEL_SHARD_GATEWAY_TOKEN": "tok-abc",
    }
    elsewhere = {**SERVER, "SHARD_KERNEL_GATEWAY_URL": "http://shard.internal:8888/"}
    assert kernel_gateway_env(elsewhere)["KERNEL_SHARD_GATEWAY_URL"] == (
        "http://shard.internal:8888/"
    )


def test_the_kernel_moves_the_pair_to_the_plain_names_and_bash_sees_no_token() -> None:
    env = {"PATH": "/bin", **kernel_gateway_env(SERVER)}
    adopt_kernel_gateway(env)
    assert env == {"PATH": "/bin", **SERVER}  # no KERNEL_ copy of the token is left behind
    assert "tok-abc" not in scrubbed_env(env).values()
    assert scrubbed_env(env)["SHARD_GATEWAY_URL"] == "http://127.0.0.1:8888/"


def test_without_the_pair_the_kernel_keeps_what_it_had() -> None:
    env = {"SHARD_GATEWAY_URL": "http://local/", "KERNEL_SHARD_GATEWAY_URL": " "}
    adopt_kernel_gateway(env)
    assert env == {"SHARD_GATEWAY_URL": "http://local/"}
