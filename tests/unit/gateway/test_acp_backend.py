"""The `acp` child backend's spec and the gate's view of an ACP tool call (no processes)."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from shard_kernel.gateway.jobs.acp_child import AcpBackend, acp_command
from shard_kernel.gateway.jobs.acp_host import shard_call


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (["opencode", "acp"], (["opencode", "acp"], 60.0)),
        ("python3 'my agent.py' --acp", (["python3", "my agent.py", "--acp"], 60.0)),
        ({"command": ["a", "b"], "timeout": 5}, (["a", "b"], 5.0)),
    ],
)
def test_a_spec_is_an_argv_and_a_timeout(spec: Any, expected: Any) -> None:
    assert acp_command(spec) == expected


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ([], "backend acp: give the agent's command"),
        (None, "backend acp: give the agent's command"),
        (["a", 3], "backend acp: every word of the command must be a non-empty string"),
        ("python3 'unclosed", "backend acp: cannot split the command"),
        ({"command": ["a"], "timeout": 0}, "backend acp: timeout must be a number of seconds"),
        ({"command": ["a"], "timeout": True}, "backend acp: timeout must be a number"),
        ({"command": ["a"], "env": {}}, "backend acp: unknown keys ['env']"),
    ],
)
def test_a_bad_spec_says_what_is_wrong(spec: Any, problem: str) -> None:
    said = acp_command(spec)
    assert isinstance(said, str)
    assert said.startswith(problem)


def test_check_finds_the_program_on_path() -> None:
    backend = AcpBackend()
    assert backend.check([sys.executable, "-c", "pass"]) is None
    assert backend.check(["no-such-acp-agent-xyz"]) == (
        "backend acp: command not found: 'no-such-acp-agent-xyz' (not an executable on the "
        "gateway's PATH)"
    )


@pytest.mark.parametrize(
    ("kind", "raw", "paths", "expected"),
    [
        ("execute", {"command": "pytest -q"}, [], ("bash", {"command": "pytest -q"}, False)),
        (
            "execute",
            {"command": ["rm", "-rf", "a b"]},
            [],
            ("bash", {"command": "rm -rf 'a b'"}, False),
        ),
        ("execute", None, [], ("bash", {"command": "Run it"}, False)),
        ("edit", {}, ["/w/a.py"], ("edit", {"path": "/w/a.py"}, False)),
        ("delete", {"file_path": "/w/b"}, [], ("edit", {"path": "/w/b"}, False)),
        ("read", {}, ["/w/a.py"], ("read", {"path": "/w/a.py"}, True)),
        ("search", {"pattern": "def"}, [], ("grep", {"pattern": "def", "path": "."}, True)),
        ("fetch", {"url": "u"}, [], ("acp_fetch", {"url": "u"}, False)),
        (None, None, [], ("acp_other", {"title": "Run it"}, False)),
        ("edit", {}, [], ("acp_edit", {"title": "Run it"}, False)),
    ],
)
def test_an_acp_tool_call_is_judged_as_the_shard_tool_a_rule_names(
    kind: str | None, raw: Any, paths: list[str], expected: Any
) -> None:
    assert shard_call(kind, "Run it", raw, paths) == expected
