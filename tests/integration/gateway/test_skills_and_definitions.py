"""Issue 21 through a real gateway: a create request's `agent` (a definition) and `skills` reach the
kernel's agent; the row carries the definition and the start diagnostics; bad values are 400s."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tests.integration.gateway.conftest import Servers, api, body, write_script
from tests.integration.gateway.test_registry import prompt

SKILL = "---\nname: {name}\ndescription: {name} things.\n---\n\nBODY OF {name}\n"


def _setup(servers: Servers, workspace: Path) -> str:
    home = Path(servers.env["SHARD_HOME"])
    for name in ("release-notes", "code-review"):
        folder = home / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(SKILL.format(name=name))
    model = write_script(
        workspace.parent,
        [
            {"tool_calls": [{"name": "load_skill", "input": {"name": "code-review"}}]},
            {"tool_calls": [{"name": "load_skill", "input": {"name": "release-notes"}}]},
            {"text": "Loaded."},
        ],
    )
    agents = Path(servers.env["XDG_CONFIG_HOME"]) / "shard" / "agents"
    agents.mkdir(parents=True)
    (agents / "writer.md").write_text(
        f"---\nname: writer\ndescription: Writes notes.\nmodel: {model}\nmode: plan\n---\n"
        "You write release notes.\n"
    )
    (workspace / "AGENTS.md").write_text("Project rules.\n")
    return model


async def test_agent_and_skills_reach_the_kernel(servers: Servers, workspace: Path) -> None:
    model = _setup(servers, workspace)
    server = servers.start()
    created = await api(
        server,
        "POST",
        "/shard/api/agents",
        {"cwd": str(workspace), "agent": "writer", "skills": ["release-notes"]},
    )
    assert created.code == 201, created.body
    agent = body(created)
    assert (agent["agent_definition"], agent["mode"], agent["model"]) == ("writer", "plan", model)
    manifest = Path(server.env["SHARD_HOME"]) / "agents" / agent["id"] / "manifest.json"
    saved = json.loads(manifest.read_text())
    assert (saved["agent_definition"], saved["skills"]) == ("writer", ["release-notes"])

    events = await prompt(server, agent["kernel_id"], "write the notes")
    results = [e for e in events if e["type"] == "tool_result"]
    assert [r["result"]["is_error"] for r in results] == [True, False]
    assert "no skill named 'code-review'; available: release-notes" in json.dumps(results[0])
    assert "BODY OF release-notes" in json.dumps(results[1])

    notes: list[str] = []
    for _ in range(100):  # the row reads the kernel's last status from its event log
        rows = body(await api(server, "GET", "/shard/api/agents"))["agents"]
        notes = rows[0]["diagnostics"]
        if notes:
            break
        await asyncio.sleep(0.1)
    agents_md = workspace.resolve() / "AGENTS.md"
    assert notes == [
        f"skipped {agents_md}: project context needs --trust-project "
        "(in a kernel: KERNEL_SHARD_TRUST_PROJECT=1)"
    ]


async def test_bad_skills_and_unknown_definitions_are_400s(
    servers: Servers, workspace: Path
) -> None:
    _setup(servers, workspace)
    server = servers.start()
    bad = await api(
        server, "POST", "/shard/api/agents", {"cwd": str(workspace), "skills": ["../x"]}
    )
    assert bad.code == 400
    assert (
        body(bad)["message"] == "skills: '../x' is not a skill name (kebab-case: a-z, 0-9, hyphens)"
    )
    unknown = await api(
        server, "POST", "/shard/api/agents", {"cwd": str(workspace), "agent": "nope"}
    )
    assert unknown.code == 400
    assert body(unknown)["message"] == "agent: no agent definition named 'nope'; known: writer"
    listed = body(await api(server, "GET", "/shard/api/agents"))["agents"]
    assert listed == []
