"""SubagentStop over a real `shard gateway`: a parent agent launches a child with
`subagent_launch`; the child (a real `shard` kernel the gateway started) reads the hooks of
config.json like any agent, and its stop is a SubagentStop, the parent's a Stop. One
SubagentStop hook logs every stop, one blocks the child's first stop (the child goes on with the
hook's reason and stops again); both run in the command sandbox, and every run is a hook_run
in the child's own session log."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.integration.gateway.conftest import Servers, write_script
from tests.integration.gateway.test_subagents import _create, _definition, _prompt, _settled

LOG = """
import json, sys
from pathlib import Path
event = json.load(sys.stdin)
with open(Path(__file__).parent / "stops.jsonl", "a") as f:
    f.write(json.dumps(event) + "\\n")
"""
BLOCK_ONCE = """
import json, sys
from pathlib import Path
event = json.load(sys.stdin)
marker = Path(__file__).parent / ("blocked-" + event["session_id"])
if not marker.exists():
    marker.write_text("once")
    print(json.dumps({"decision": "block", "reason": "run the checks before you stop"}))
"""
CHILD = [
    {"text": "Looks fine to me."},
    {"text": "Checked: all good."},
]


def _config(server_env: dict[str, str], hooks: Path) -> None:
    def command(name: str) -> dict[str, Any]:
        return {"type": "command", "command": f"{sys.executable} {hooks / name}", "timeout": 60}

    config = {
        "hooks": {
            "SubagentStop": [{"hooks": [command("log.py"), command("block_once.py")]}],
            "Stop": [{"hooks": [command("log.py")]}],
        }
    }
    folder = Path(server_env["XDG_CONFIG_HOME"]) / "shard"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config))


def _hook_runs(home: Path, agent_id: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for path in sorted((home / "agents" / agent_id / "sessions").glob("*.jsonl")):
        for line in path.read_text().splitlines():
            entry = json.loads(line)
            if entry.get("type") == "checkpoint" and entry["details"].get("kind") == "hook_run":
                found.append(entry["details"])
    return found


async def test_subagent_stop_hooks_block_once_and_log_over_a_real_gateway(
    servers: Servers, workspace: Path
) -> None:
    hooks = workspace / ".hooks"
    hooks.mkdir()
    (hooks / "log.py").write_text(LOG)
    (hooks / "block_once.py").write_text(BLOCK_ONCE)
    server = servers.start()
    home = Path(server.env["SHARD_HOME"])
    _config(server.env, hooks)
    _definition(server.env, "checker", write_script(workspace.parent, CHILD, "child.json"))
    launch = {"agent": "checker", "tasks": ["Check the workspace."]}
    parent_script = [
        {"tool_calls": [{"name": "subagent_launch", "input": launch}]},
        {"text": "Launched a checker."},
    ]
    parent = await _create(server, workspace, write_script(workspace.parent, parent_script))

    await _prompt(server, parent["kernel_id"], "check with a subagent")
    [job] = await _settled(server, parent["id"], 1)
    assert job["state"] == "completed", job
    [run] = job["runs"]
    child = run["agent_id"]

    stops = [json.loads(line) for line in (hooks / "stops.jsonl").read_text().splitlines()]
    parent_session = {s["session_id"] for s in stops if s["hook_event_name"] == "Stop"}
    child_stops = [s for s in stops if s["hook_event_name"] == "SubagentStop"]
    assert len(parent_session) == 1
    assert [s["stop_hook_active"] for s in child_stops] == [False, True]
    assert {s["session_id"] for s in child_stops}.isdisjoint(parent_session)
    assert all(s["cwd"] == str(workspace.resolve()) for s in child_stops)
    assert all(
        Path(s["transcript_path"]).is_relative_to(home / "agents" / child) for s in child_stops
    )

    runs = [(r["event"], Path(r["command"].split()[-1]).name, r["decision"], r["sandboxed"])
            for r in _hook_runs(home, child)]  # fmt: skip
    assert runs == [
        ("SubagentStop", "log.py", "none", True),
        ("SubagentStop", "block_once.py", "continue", True),
        ("SubagentStop", "log.py", "none", True),
        ("SubagentStop", "block_once.py", "none", True),
    ]
    assert [(r["event"], r["decision"]) for r in _hook_runs(home, parent["id"])] == [
        ("Stop", "none")
    ]
    # The child went on with the hook's reason as its next instruction, and its report is the
    # answer after it.
    child_log = "".join(
        p.read_text() for p in (home / "agents" / child / "sessions").glob("*.jsonl")
    )
    assert "run the checks before you stop" in child_log
    assert "Checked: all good." in child_log
