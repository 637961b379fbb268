"""Real MCP servers from PyPI, nobody here wrote them, started as stdio subprocesses."""

from __future__ import annotations

import subprocess
from pathlib import Path

from shard_core.types import TextDescriptor, ToolResultEntry
from tests.fixtures.function_provider import scripted
from tests.integration.mcp.conftest import BIN, Person, make_agent, time_server, tool_text

UTC_CALL = ("mcp__time__get_current_time", {"timezone": "UTC"})


async def test_time_server_tools_are_listed_asked_called_and_rendered(tmp_path: Path) -> None:
    person = Person(answers=["allow"])
    agent, provider = await make_agent(
        tmp_path, {"time": time_server()}, scripted({"tool_calls": [UTC_CALL]}), person=person
    )
    try:
        await agent.run("what time is it in UTC?")
    finally:
        await agent.close()
    specs = {t.name: t for t in provider.requests[0].tools}
    assert {"mcp__time__get_current_time", "mcp__time__convert_time"} <= set(specs)
    schema = specs["mcp__time__get_current_time"].input_schema
    assert schema["required"] == ["timezone"]  # the server's JSON Schema, passed through
    assert "IANA timezone name" in schema["properties"]["timezone"]["description"]
    # The gate asked first (an MCP tool is never allowed unasked, read-only hint or not), and
    # the question carried the full description and schema.
    [prompt] = person.asked
    assert prompt.tool == "mcp__time__get_current_time"
    assert prompt.read_only is False
    shown = "\n".join(getattr(d, "text", "") for d in prompt.preview)
    assert "Get current time in a specific timezone" in shown
    assert '"timezone"' in shown
    text, is_error = tool_text(agent)
    assert not is_error
    assert '"timezone": "UTC"' in text
    entry = [e for e in agent.session.store.entries if isinstance(e, ToolResultEntry)][-1]
    [rendered] = [d for d in entry.details.result.render if isinstance(d, TextDescriptor)]
    assert '"timezone": "UTC"' in rendered.text


async def test_a_deny_rule_blocks_an_mcp_tool_without_asking(tmp_path: Path) -> None:
    person = Person(answers=["allow"])
    agent, _ = await make_agent(
        tmp_path,
        {"time": time_server()},
        scripted({"tool_calls": [UTC_CALL]}),
        person=person,
        deny=["mcp__time__*"],
    )
    try:
        await agent.run("what time is it?")
    finally:
        await agent.close()
    text, is_error = tool_text(agent)
    assert is_error
    assert text.startswith("permission denied")
    assert person.asked == []


async def test_git_server_reads_a_temporary_repository(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-c", "user.name=T", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q", str(repo)], check=True)
    (repo / "a.txt").write_text("hello\n")
    subprocess.run([*git, "-C", str(repo), "add", "a.txt"], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-qm", "first commit here"], check=True)
    (repo / "a.txt").write_text("hello\nworld\n")
    server = {"command": str(BIN / "mcp-server-git"), "args": ["--repository", str(repo)]}
    calls = [
        ("mcp__git__git_log", {"repo_path": str(repo)}),
        ("mcp__git__git_diff_unstaged", {"repo_path": str(repo)}),
    ]
    person = Person(answers=["allow", "allow"])
    agent, _ = await make_agent(
        tmp_path, {"git": server}, scripted({"tool_calls": calls}), person=person
    )
    try:
        await agent.run("what changed?")
    finally:
        await agent.close()
    log, log_error = tool_text(agent, -2)
    diff, diff_error = tool_text(agent, -1)
    assert not log_error
    assert "first commit here" in log
    assert not diff_error
    assert "+world" in diff
    assert [p.tool for p in person.asked] == [c[0] for c in calls]
