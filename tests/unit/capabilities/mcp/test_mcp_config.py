"""MCP configuration, names and grant pins: pure parts, no processes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shard_core.capabilities.mcp import expand, load_servers, server_parts, tool_names
from shard_core.engine.permissions.grants import GrantStore
from shard_core.types.errors import ConfigError


def _nope(name: str) -> str:
    raise ConfigError(f"no credential named {name!r}")


def test_expansion_names_the_missing_variable_never_a_value() -> None:
    env = {"TOKEN": "s3cret"}
    assert expand("Bearer ${TOKEN}", env, _nope) == "Bearer s3cret"
    assert expand("${HOST:-127.0.0.1}:1", env, _nope) == "127.0.0.1:1"
    assert expand("${credential:work}", env, lambda n: f"<{n}>") == "<work>"
    with pytest.raises(ConfigError, match=r"\$\{MISSING\} is not set"):
        expand("x${MISSING}", env, _nope)


def test_server_parts_never_collide_and_never_contain_a_separator() -> None:
    parts = server_parts(["a.b", "a_b", "a__b", "time", "x" * 40])
    assert parts["time"] == "time"
    assert len(set(parts.values())) == 5
    assert all("__" not in p for p in parts.values())


def test_tool_names_stay_in_the_namespace_and_alphabet() -> None:
    names = tool_names("srv", ["get time", "get_time", "../bash", "t" * 80])
    assert len(set(names.values())) == 4
    for full in names.values():
        assert full.startswith("mcp__srv__")
        assert len(full) <= 64
        assert all(c.isalnum() or c in "_-" for c in full)


def test_project_servers_need_trust_and_bad_entries_are_named(tmp_path: Path) -> None:
    (tmp_path / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"p": {"command": "x"}, "bad": {"command": 3}}})
    )
    untrusted = load_servers({"u": {"url": "http://127.0.0.1:1/mcp"}}, tmp_path, trusted=False)
    assert list(untrusted.servers) == ["u"]
    assert "which needs --trust-project" in untrusted.diagnostics[0]
    trusted = load_servers({}, tmp_path, trusted=True)
    assert list(trusted.servers) == ["p"]
    assert trusted.servers["p"].origin == "project"
    assert any(
        "server 'bad': 'command' must be a non-empty string" in d for d in trusted.diagnostics
    )


def test_grants_keep_pins_and_repin(tmp_path: Path) -> None:
    store = GrantStore("a", home=tmp_path)
    store.add("mcp__s__t", "alice", {"mcp__s__t": "old"})
    store.add("mcp__s__*", "alice", {"mcp__s__u": "u1"})
    store.add("mcp__s__*", "alice", {"mcp__s__t": "old"})  # merged into the same grant
    again = GrantStore("a", home=tmp_path)
    assert again.pins("mcp__s__t") == {"old"}
    assert again.repin("mcp__s__t", "new") == 2
    assert GrantStore("a", home=tmp_path).pins("mcp__s__t") == {"new"}
    assert GrantStore("a", home=tmp_path).pins("mcp__s__u") == {"u1"}


def test_stderr_tail_redacts_known_and_expanded_secrets() -> None:
    import time

    from shard_core.capabilities.mcp.stderr import StderrTail
    from shard_core.types.secrets import KnownSecrets

    tail = StderrTail("srv", KnownSecrets(["sk-live-0123456789abcdef"]))
    tail.secrets.add("tok-9876543210fedcba")
    with tail.open() as pipe:
        pipe.write("auth failed for sk-live-0123456789abcdef\nheader tok-9876543210fedcba bad\n")
    for _ in range(100):  # the reader thread drains the pipe
        if "bad" in tail.text():
            break
        time.sleep(0.01)
    text = tail.text()
    assert "sk-live" not in text
    assert "tok-98765" not in text
    assert text.count("[secret]") == 2
