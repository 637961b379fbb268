"""Done when: a Claude Code `.mcp.json` copied into a workspace + `shard run --trust-project`
lets the (scripted) model call its tools through the gate; `shard mcp list` and `test`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.mcp.conftest import BIN

pytestmark = pytest.mark.integration


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["SHARD_HOME"] = str(tmp_path / "shard-home")
    env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        env.pop(key, None)
    return env


def _shard(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "shard_kernel.cli", *args],
        capture_output=True, text=True, env=env, cwd=cwd, timeout=300, check=False,
    )  # fmt: skip


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    # What a Claude Code user has: the project's .mcp.json, copied as it is.
    claude_code = {"mcpServers": {"time": {"command": str(BIN / "mcp-server-time"), "args": [],
                                           "env": {}}}}  # fmt: skip
    (work / ".mcp.json").write_text(json.dumps(claude_code, indent=2))
    script = {
        "name": "mcp-time",
        "steps": [
            {
                "tool_calls": [
                    {"name": "mcp__time__get_current_time", "input": {"timezone": "Europe/Paris"}}
                ]
            },
            {"text": "Done."},
        ],
    }
    (tmp_path / "script.json").write_text(json.dumps(script))
    return work


def test_shard_run_trust_project_calls_the_project_server_through_the_gate(
    tmp_path: Path, workspace: Path
) -> None:
    env = _env(tmp_path)
    model = f"scripted/{tmp_path / 'script.json'}"
    # Trusting the project is not approving whatever its .mcp.json says now: nobody can be asked
    # in a --json run, so the server is not started, and the run says why.
    unapproved = _shard(
        env, workspace, "run", "--trust-project", "--model", model, "--json",
        "--allow", "mcp__time__get_current_time", "what time is it in Paris?",
    )  # fmt: skip
    assert "project MCP server 'time'" in unapproved.stderr
    assert "not started: new or changed since a person approved it" in unapproved.stderr
    approved = _shard(env, workspace, "mcp", "approve", "time", "--trust-project")
    assert approved.returncode == 0, approved.stderr
    allowed = _shard(
        env, workspace, "run", "--trust-project", "--model", model, "--json",
        "--allow", "mcp__time__get_current_time", "what time is it in Paris?",
    )  # fmt: skip
    assert allowed.returncode == 0, allowed.stderr
    events = [json.loads(line) for line in allowed.stdout.splitlines()]
    [result] = [e for e in events if e["type"] == "tool_result"]
    assert result["name"] == "mcp__time__get_current_time"
    assert not result["result"]["is_error"]
    assert '"timezone": "Europe/Paris"' in result["result"]["content"][0]["text"]
    [resolved] = [e for e in events if e["type"] == "permission_resolved"]
    assert resolved["rule"] == "mcp__time__get_current_time"  # the gate decided, by the rule

    # Without a rule nobody can be asked here: the gate's headless policy denies it.
    denied = _shard(env, workspace, "run", "--trust-project", "--model", model, "--json", "hi")
    events = [json.loads(line) for line in denied.stdout.splitlines()]
    [result] = [e for e in events if e["type"] == "tool_result"]
    assert result["result"]["is_error"]
    assert result["result"]["content"][0]["text"].startswith("permission denied")

    # Without --trust-project the project's servers are not started, and the run says why.
    untrusted = _shard(env, workspace, "run", "--model", model, "--json", "hi")
    assert "project MCP servers (time) not started" in untrusted.stderr
    assert "needs --trust-project" in untrusted.stderr
    events = [json.loads(line) for line in untrusted.stdout.splitlines()]
    [result] = [e for e in events if e["type"] == "tool_result"]
    assert "unknown tool 'mcp__time__get_current_time'" in result["result"]["content"][0]["text"]


def test_shard_mcp_list_and_test(tmp_path: Path, workspace: Path) -> None:
    env = _env(tmp_path)
    listed = _shard(env, workspace, "mcp", "list")
    assert listed.returncode == 0
    assert "need --trust-project" in listed.stdout or "needs --trust-project" in listed.stdout
    refused = _shard(env, workspace, "mcp", "test", "time", "--trust-project")
    assert refused.returncode != 0
    assert "shard mcp approve" in refused.stderr or "/mcp approve time" in refused.stderr
    listed = _shard(env, workspace, "mcp", "list", "--trust-project", "--json")
    [row] = json.loads(listed.stdout)["servers"]
    assert row["status"].startswith("not approved")
    assert _shard(env, workspace, "mcp", "approve", "time", "--trust-project").returncode == 0
    tested = _shard(env, workspace, "mcp", "test", "time", "--trust-project")
    assert tested.returncode == 0, tested.stderr
    assert "time: started in" in tested.stdout
    assert "mcp__time__get_current_time: Get current time in a specific timezone" in tested.stdout
    # `list` now knows its tools from that start, without starting it.
    listed = _shard(env, workspace, "mcp", "list", "--trust-project", "--json")
    [row] = json.loads(listed.stdout)["servers"]
    assert row["status"] == "not running (tools from its last start)"
    assert "mcp__time__convert_time" in row["tools"]
    missing = _shard(env, workspace, "mcp", "test", "nope", "--trust-project")
    assert missing.returncode == 2  # bad input
    assert missing.stderr.startswith("shard: error: no MCP server 'nope' (configured: time)")
