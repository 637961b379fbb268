"""Issue 20 items 2 and 4 at the bash tool: the environment a command gets.

Item 2: a repository's own `.git/config` names programs git runs during `git status`, `git diff`
and `git log -p`; through the bash tool none of them runs. Item 4: a variable that is a secret by
name or by value never reaches a command unless config forwards its name.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from shard_core.contracts import ToolContext
from shard_core.tools import BashTool, builtin_tools
from shard_core.tools.environment import (
    GIT_SAFE_CONFIG,
    agent_home,
    repository_overrides,
    scrubbed_env,
    tool_environment,
    with_git_config,
)
from tests.unit.tools.conftest import run

DANGEROUS = {
    "core.fsmonitor": "fsmonitor",
    "core.pager": "pager",
    "core.hooksPath": None,  # a hook folder (below)
    "core.sshCommand": "ssh",
    "diff.external": "external",
    "filter.evil.clean": "clean",
    "filter.evil.smudge": "smudge",
    "filter.evil.process": "process",
    "diff.evil.textconv": "textconv",
    "diff.evil.command": "diffcommand",
    "gpg.program": "gpg",
    "credential.helper": "credential",
}


def _git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, timeout=30
    )
    return done.stdout + done.stderr


@pytest.fixture
def hostile_repo(workspace: Path) -> Path:
    """A committed repo whose .git/config turns every dangerous key into a marker writer."""
    marks = workspace / "marks"
    marks.mkdir()
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    for args in (
        ("init", "-q", "."),
        ("config", "user.email", "t@example.com"),
        ("config", "user.name", "t"),
    ):
        _git(workspace, *args, env=clean)
    (workspace / "a.txt").write_text("one\n")
    (workspace / ".gitattributes").write_text("a.txt filter=evil diff=evil\n")
    _git(workspace, "add", "a.txt", ".gitattributes", env=clean)
    _git(workspace, "commit", "-qm", "init", env=clean)
    hooks = workspace / "hooks"
    hooks.mkdir()
    for hook in ("post-index-change", "pre-commit", "reference-transaction"):
        (hooks / hook).write_text(f"#!/bin/sh\ntouch {marks}/hook-{hook}\n")
        (hooks / hook).chmod(0o755)
    for key, mark in DANGEROUS.items():
        value = str(hooks) if mark is None else f"touch {marks}/{mark}; cat"
        _git(workspace, "config", key, value, env=clean)
    _git(workspace, "config", "log.showSignature", "true", env=clean)
    (workspace / "a.txt").write_text("two\n")
    os.utime(workspace / "a.txt", (1_000_000_000, 1_000_000_000))  # stat-dirty: refilter
    return workspace


def test_the_hostile_repo_does_run_its_programs_without_protection(hostile_repo: Path) -> None:
    """The control: plain git in this repo writes markers (so the next test can fail)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    for command in (["status"], ["diff"], ["log", "-p"]):
        _git(hostile_repo, *command, env=clean)
    assert {"fsmonitor", "diffcommand", "textconv"} <= {
        p.name for p in (hostile_repo / "marks").iterdir()
    }


@pytest.mark.parametrize(
    "command", ["git status", "git diff", "git log -p", "git show", "git diff --stat HEAD"]
)
async def test_item2_read_only_git_runs_no_program_from_the_repository(
    hostile_repo: Path, ctx: ToolContext, command: str
) -> None:
    result = await run(BashTool(), ctx, command=command)
    assert list((hostile_repo / "marks").iterdir()) == [], result.text
    assert "exit code 0" in result.text, result.text


async def test_item2_git_diff_says_the_external_program_was_not_run(
    hostile_repo: Path, ctx: ToolContext
) -> None:
    result = await run(BashTool(), ctx, command="git diff")
    assert "shard: not run: diff.evil.command from the repository config" in result.text


async def test_item2_textconv_and_filters_become_the_identity(
    hostile_repo: Path, ctx: ToolContext
) -> None:
    result = await run(BashTool(), ctx, command="git log -p --format=%s a.txt")
    assert result.text.splitlines()[-4:-2] == ["@@ -0,0 +1 @@", "+one"]
    status = await run(BashTool(), ctx, command="git status --short a.txt")
    assert status.text.startswith(" M a.txt")
    assert list((hostile_repo / "marks").iterdir()) == []


async def test_item2_an_approved_commit_runs_no_repository_hook(
    hostile_repo: Path, ctx: ToolContext
) -> None:
    result = await run(BashTool(), ctx, command="git commit -qam two --no-gpg-sign && echo ok")
    assert result.text.startswith("ok"), result.text
    assert list((hostile_repo / "marks").iterdir()) == []


def test_item2_overrides_name_every_driver_the_repository_defines() -> None:
    keys = ["filter.LFS.clean", "diff.pdf.textconv", "diff.external", "merge.ours.driver"]
    pairs = dict(repository_overrides(keys))
    assert pairs["filter.LFS.clean"] == "cat"
    assert pairs["filter.LFS.smudge"] == "cat"
    assert pairs["filter.LFS.process"] == ""
    assert pairs["filter.LFS.required"] == "false"
    assert pairs["diff.pdf.textconv"] == "cat"
    assert pairs["diff.external"].startswith("printf")
    assert pairs["merge.ours.driver"].endswith("false")
    assert repository_overrides(["core.editor", "user.name"]) == []


def test_item2_git_config_follows_any_the_environment_already_had() -> None:
    env = with_git_config(
        {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "a.b", "GIT_CONFIG_VALUE_0": "c"},
        list(GIT_SAFE_CONFIG[:2]),
    )
    assert env["GIT_CONFIG_COUNT"] == "3"
    assert (env["GIT_CONFIG_KEY_0"], env["GIT_CONFIG_KEY_1"]) == ("a.b", "core.fsmonitor")
    assert env["GIT_TERMINAL_PROMPT"] == "0"


SECRETS = {
    "DB_PASSWORD": "hunter2-db",
    "AZURE_OPENAI_KEY": "0123456789abcdef0123456789abcdef",
    "GITHUB_PAT": "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
    "MY_TOKEN": "tok-value-1",
    "SESSION_COOKIE_SECRET": "s3cr3t!",
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "harmless_looking": "sk-proj-abcdefghijklmnopqrstuvwx",
    "OPAQUE": "AKIAIOSFODNN7EXAMPLE",
    "SLACK": "xoxb-1234567890-abcdefghij",
    "JWT": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJl",
    "DATABASE_URL": "postgres://app:pa55word@db.internal/app",
    "RANDOM_BLOB": "Zx8Qv2LmN4pR7sT1uW3yA5bC6dE9fG0h",
}
KEPT = {
    "PATH": os.environ["PATH"],
    "HOME": "/home/someone",
    "MAX_TOKENS": "4096",
    "TOKENIZERS_PARALLELISM": "false",
    "KEYBOARD": "us",
    "SSH_AUTH_SOCK": "/tmp/ssh-agent.sock",
    "GIT_COMMIT": "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    "PWD": "/work",
}


def test_item4_one_definition_of_secret_for_the_shell() -> None:
    assert scrubbed_env({**SECRETS, **KEPT}) == KEPT


def test_item4_config_forwards_a_secret_by_name_only() -> None:
    assert scrubbed_env({**SECRETS, **KEPT}, ["MY_TOKEN"]) == {**KEPT, "MY_TOKEN": "tok-value-1"}


async def test_item4_secrets_never_reach_echo_or_env(ctx: ToolContext) -> None:
    env = {**SECRETS, **KEPT}
    command = "env; echo " + " ".join(f"[${name}]" for name in SECRETS)
    result = await run(BashTool(), replace(ctx, env=env), command=command)
    leaked = [name for name, value in SECRETS.items() if value in result.text]
    assert leaked == []
    assert "[] " * 3 in result.text
    assert "HOME=/home/someone" in result.text


ALLOWLIST_CASES = {
    # not on the list: dropped whatever the value
    "SSH_AUTH_SOCK": "/tmp/ssh-agent.sock",
    "GPG_AGENT_INFO": "/run/user/1000/gnupg/S.gpg-agent:0:1",
    "DOCKER_SOCK": "/var/run/docker.sock",
    "DB_PASS": "hunter2",
    "SENTRY_DSN": "https://abc123@o1.ingest.example/1",
    "SLACK_WEBHOOK_URL": "https://hooks.example/services/T0/B0/XYZ",
    "AZURE_STORAGE_CONNECTION_STRING": "DefaultEndpointsProtocol=https;AccountKey=abc",
    "SOME_NEW_TOOL_SETTING": "anything",
    "DISPLAY": ":0",
    "GIT_SSH_COMMAND": "ssh -i /tmp/key",
    # on the list but looking like a secret: dropped
    "HTTPS_PROXY": "http://user:pa55word@proxy.internal:3128",
}
ALLOWED = {
    "PATH": os.environ["PATH"],
    "HOME": "/home/someone",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "TERM": "xterm",
    "VIRTUAL_ENV": "/work/.venv",
    "PYTHONPATH": "/work/src",
    "CONDA_PREFIX": "/opt/conda",
    "CARGO_HOME": "/home/someone/.cargo",
    "NODE_PATH": "/usr/lib/node_modules",
    "GIT_AUTHOR_NAME": "Someone",
}


async def test_item5_the_tool_environment_is_an_allowlist(ctx: ToolContext) -> None:
    """Only listed names reach a command (a listed one whose value is a secret does not);
    `tools.env_passthrough` forwards any name on purpose."""
    env = {**ALLOWLIST_CASES, **ALLOWED}
    got = await tool_environment(env, ctx.cwd, agent_id="agent-x")
    assert {k: v for k, v in got.items() if not k.startswith("GIT_") or k in ALLOWED} == {
        **ALLOWED,
        "SHARD_AGENT_ID": "agent-x",
        "SHARD_AGENT_HOME": agent_home(),
    }
    assert sorted(k for k in got if k.startswith("GIT_") and k not in ALLOWED)[:2] == [
        "GIT_ASKPASS",
        "GIT_CONFIG_COUNT",
    ]
    forwarded = await tool_environment(
        env, ctx.cwd, agent_id="a", passthrough=["SSH_AUTH_SOCK", "SOME_NEW_TOOL_SETTING"]
    )
    assert forwarded["SSH_AUTH_SOCK"] == "/tmp/ssh-agent.sock"
    assert forwarded["SOME_NEW_TOOL_SETTING"] == "anything"
    result = await run(BashTool(), replace(ctx, env=env), command="env")
    assert [name for name in ALLOWLIST_CASES if f"{name}=" in result.text] == []
    assert "VIRTUAL_ENV=/work/.venv" in result.text


async def test_item4_env_passthrough_reaches_the_command(ctx: ToolContext) -> None:
    tool = builtin_tools(env_passthrough=["MY_TOKEN"])[3]
    assert isinstance(tool, BashTool)
    env = {**SECRETS, **KEPT}
    result = await run(tool, replace(ctx, env=env), command='echo "$MY_TOKEN/$DB_PASSWORD"')
    assert result.text == "tok-value-1/\n\nexit code 0"
