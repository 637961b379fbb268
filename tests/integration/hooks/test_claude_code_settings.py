"""A project's Claude Code hooks block, copied as it is into `.shard/settings.json`, works in
Shard: `"type": "command"`, matchers `Bash`, `Edit|Write` and `mcp__.*`, scripts named through
`$CLAUDE_PROJECT_DIR`, scripts that read `tool_input.file_path` and answer as Claude Code's
documentation says. The scripts run sandboxed (the default)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from shard_core.contracts import ExtensionApi, ToolContext
from shard_core.types import JsonObject, ToolResult
from tests.integration.hooks.recording import run

pytestmark = pytest.mark.skipif(shutil.which("python3") is None, reason="no python3 on PATH")

SETTINGS = """{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "\\"$CLAUDE_PROJECT_DIR\\"/.claude/hooks/no-rm.py"
          }
        ]
      },
      {
        "matcher": "Edit|Write",
        "hooks": [
          {
            "type": "command",
            "command": "\\"$CLAUDE_PROJECT_DIR\\"/.claude/hooks/protect-env.py",
            "timeout": 10
          }
        ]
      },
      {
        "matcher": "mcp__.*",
        "hooks": [
          {
            "type": "command",
            "command": "echo \\"$(cat)\\" >> \\"$CLAUDE_PROJECT_DIR\\"/mcp-calls.log"
          }
        ]
      }
    ],
    "PostToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [
          {
            "type": "command",
            "command": "\\"$CLAUDE_PROJECT_DIR\\"/.claude/hooks/after-edit.py"
          }
        ]
      }
    ]
  }
}
"""

NO_RM = """#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
command = data.get("tool_input", {}).get("command", "")
if "rm -rf" in command:
    print("Blocked: rm -rf is not allowed in this repository", file=sys.stderr)
    sys.exit(2)
sys.exit(0)
"""

PROTECT_ENV = """#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
path = data.get("tool_input", {}).get("file_path", "")
if path.endswith(".env"):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "Editing .env files is not allowed"}}))
sys.exit(0)
"""

AFTER_EDIT = """#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
path = data["tool_input"]["file_path"]
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse",
    "additionalContext": "Formatted " + path}}))
"""


class DocsSearch:
    """An MCP-named tool (`mcp__server__tool`, as the MCP capability names them)."""

    name = "mcp__docs__search"
    description = "Search the docs."
    input_schema: JsonObject = {"type": "object", "properties": {"query": {"type": "string"}}}
    read_only = True

    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        return ToolResult.ok(f"found {input.get('query')}")


def project(work: Path) -> None:
    (work / ".shard").mkdir()
    (work / ".shard" / "settings.json").write_text(SETTINGS, encoding="utf-8")
    hooks = work / ".claude" / "hooks"
    hooks.mkdir(parents=True)
    for name, text in (("no-rm.py", NO_RM), ("protect-env.py", PROTECT_ENV),
                       ("after-edit.py", AFTER_EDIT)):  # fmt: skip
        (hooks / name).write_text(text, encoding="utf-8")
        os.chmod(hooks / name, 0o755)


def calls(*pairs: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {"tool_calls": list(pairs)}


async def test_a_claude_code_hooks_block_copied_verbatim_works(work: Path) -> None:
    project(work)
    replies = calls(
        ("bash", {"command": "rm -rf build"}),
        ("write", {"path": "notes.txt", "content": "hello\n"}),
        ("write", {"path": "prod.env", "content": "KEY=1\n"}),
        ("mcp__docs__search", {"query": "hooks"}),
    )

    def tools(api: ExtensionApi) -> None:
        api.register_tool(DocsSearch())

    provider, results, notes = await run(
        work, {}, replies, trust_project=True, allow=["Write(*)"],
        extensions=[("test.docs", tools)],
    )  # fmt: skip
    rm, notes_txt, env, search = results
    assert rm.is_error
    assert "Blocked: rm -rf is not allowed in this repository" in rm.text
    assert not notes_txt.is_error, notes_txt.text
    assert (work / "notes.txt").read_text() == "hello\n"
    assert env.is_error
    assert "Editing .env files is not allowed" in env.text
    assert not (work / "prod.env").exists()
    assert search.text == "found hooks"
    [logged] = (work / "mcp-calls.log").read_text().splitlines()
    assert json.loads(logged)["tool_name"] == "mcp__docs__search"
    assert "Formatted notes.txt" in json.dumps(
        [m.model_dump(mode="json") for m in provider.requests[1].messages]
    )
    assert not [n for n in notes if n.startswith("hooks")], notes
