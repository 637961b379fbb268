"""The package surface: exported names, the builtin set, and each tool's contract."""

from __future__ import annotations

from pathlib import Path

import pytest

import shard_core.tools
from shard_core.contracts import Tool, ToolContext
from shard_core.tools import builtin_tools
from shard_core.types import JsonObject, ToolResult


def test_exported_members() -> None:
    assert shard_core.tools.__all__ == [
        "BashTool",
        "EditTool",
        "FindTool",
        "GrepTool",
        "LsTool",
        "ReadTool",
        "WriteTool",
        "builtin_tools",
    ]


def test_builtin_tools_are_fresh_tools_with_the_right_flags() -> None:
    tools = builtin_tools()
    assert [(t.name, t.read_only) for t in tools] == [
        ("read", True),
        ("write", False),
        ("edit", False),
        ("bash", False),
        ("grep", True),
        ("find", True),
        ("ls", True),
    ]
    assert all(isinstance(t, Tool) for t in tools)
    assert builtin_tools()[0] is not tools[0]


@pytest.mark.parametrize("tool", builtin_tools(), ids=lambda t: t.name)
def test_schemas_are_closed_objects(tool: Tool) -> None:
    schema = tool.input_schema
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert set(schema.get("required", [])) <= set(schema["properties"])
    assert 80 < len(tool.description) < 600


async def test_results_travel_as_json(tmp_path: Path) -> None:
    (tmp_path / "f.py").write_text("x = 1\n")
    ctx = ToolContext(cwd=tmp_path, roots=[tmp_path], agent_id="a", session_id="s", call_id="c")
    inputs: dict[str, JsonObject] = {
        "read": {"path": "f.py"},
        "write": {"path": "g.py", "content": "y\n"},
        "edit": {"path": "f.py", "old_string": "1", "new_string": "2"},
        "bash": {"command": "echo hi"},
        "grep": {"pattern": "x"},
        "find": {"pattern": "*.py"},
        "ls": {},
    }
    for tool in builtin_tools():
        result = await tool.execute(inputs[tool.name], ctx)
        assert not result.is_error, (tool.name, result.text)
        assert ToolResult.model_validate_json(result.to_json()) == result
