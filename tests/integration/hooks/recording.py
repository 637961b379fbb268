"""A recording hook script and the agent runs the hook tests share.

The script (python, written into the workspace's `.hooks/`, where the command sandbox lets it
write) appends the JSON it gets on stdin to
`seen.jsonl` and answers as its first argument says; the function provider plays the model
and keeps each request."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from shard_core.contracts import ExtensionApi
from shard_core.engine.config import ShardConfig
from shard_core.sdk import Agent, create_agent
from shard_core.types import ToolResultEntry
from tests.fixtures.function_provider import FunctionProvider, Reply, scripted

HOOK = """
import json, sys, time
from pathlib import Path
here = Path(__file__).parent
event = json.load(sys.stdin)
with open(here / "seen.jsonl", "a") as f:
    f.write(json.dumps(event) + "\\n")
mode = sys.argv[1]
if mode == "block":
    print("no rm here", file=sys.stderr)
    sys.exit(2)
if mode == "deny":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "policy says no"}}))
if mode == "rewrite":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "allow", "updatedInput": {"command": "echo changed"}}}))
if mode == "context":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse",
        "additionalContext": "LINT: 3 warnings in out.txt"}}))
if mode == "allow":
    print(json.dumps({"hookSpecificOutput": {"permissionDecision": "allow"}}))
if mode == "say":
    print(sys.argv[2])
if mode == "until":
    if not (Path(event["cwd"]) / sys.argv[2]).exists():
        print(json.dumps({"decision": "block", "reason": "create " + sys.argv[2] + " first"}))
if mode == "crash":
    raise SystemExit("boom")
if mode == "garbage":
    print("{not json")
if mode == "hang":
    time.sleep(30)
if mode == "sleep":
    time.sleep(float(sys.argv[2]))
if mode == "hold":  # until the test creates the file (the hook's timeout bounds it)
    while not (Path(event["cwd"]) / sys.argv[2]).exists():
        time.sleep(0.01)
"""


def hook(
    work: Path, mode: str, matcher: str = "Bash", timeout: float = 30, arg: str | None = None
) -> dict[str, Any]:
    script = work / ".hooks" / "hook.py"
    command = f"{sys.executable} {script} {mode}"
    if arg is not None:
        command += " '" + arg.replace("'", "'\\''") + "'"
    return {
        "matcher": matcher,
        "hooks": [{"type": "command", "command": command, "timeout": timeout}],
    }


def seen(work: Path) -> list[dict[str, Any]]:
    path = work / ".hooks" / "seen.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


async def agent_with(
    work: Path, hooks: dict[str, Any], *replies: Reply, **kwargs: Any
) -> tuple[Agent, FunctionProvider]:
    provider = FunctionProvider(scripted(*replies, "done"))

    def install(api: ExtensionApi) -> None:
        api.register_provider("fn", lambda _model: provider)

    kwargs.setdefault("allow", ["Bash(echo:*)"])
    kwargs.setdefault("env", {})
    config = kwargs.pop("config", None) or ShardConfig(hooks=hooks)
    agent = await create_agent(
        cwd=work, model="fn/test", config=config,
        extensions=[("test.fn", install), *kwargs.pop("extensions", [])],
        headless_policy="deny", **kwargs,
    )  # fmt: skip
    return agent, provider


async def run(work: Path, hooks: dict[str, Any], *replies: Reply, **kwargs: Any) -> Any:
    agent, provider = await agent_with(work, hooks, *replies, **kwargs)
    try:
        await agent.run("go")
        results = [
            e.details.result for e in agent.session.store.entries if isinstance(e, ToolResultEntry)
        ]
        diagnostics = list(agent.session.diagnostics)
    finally:
        await agent.close()
    return provider, results, diagnostics


def bash(command: str) -> dict[str, Any]:
    return {"tool_calls": [("bash", {"command": command})]}


def sent(provider: FunctionProvider, index: int = -1) -> str:
    """What one request carried, as JSON text."""
    return json.dumps([m.model_dump(mode="json") for m in provider.requests[index].messages])
