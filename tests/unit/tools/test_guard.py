"""Input checking and the never-raise guard shared by every built-in tool."""

from __future__ import annotations

import pytest

from shard_core.contracts import ToolContext
from shard_core.tools import BashTool, EditTool, ReadTool
from shard_core.tools.guard import check_input, guarded
from shard_core.types import JsonObject, ToolResult
from tests.unit.tools.conftest import run


@pytest.mark.parametrize(
    ("input", "problem"),
    [
        ({}, "missing required field 'path'"),
        ({"path": 3}, "'path' must be a string, got integer 3"),
        ({"path": "a", "offset": "2"}, "'offset' must be an integer, got string '2'"),
        ({"path": "a", "offset": True}, "'offset' must be an integer, got boolean True"),
        ({"path": "a", "offset": 0}, "'offset' must be at least 1, got 0"),
        ({"path": "a", "lines": 3}, "unknown field 'lines' (allowed: path, offset, limit)"),
        ({"path": "a", "offset": 2.0}, None),
    ],
)
def test_read_schema_problems_are_named(input: JsonObject, problem: str | None) -> None:
    assert check_input(ReadTool.input_schema, input) == problem


def test_nested_problems_name_their_place() -> None:
    schema = EditTool.input_schema
    edits: JsonObject = {"path": "a", "edits": [{"old_string": "x", "new_string": "y"}, {}]}
    assert check_input(schema, edits) == "missing required field 'edits[1].old_string'"
    wrong: JsonObject = {"path": "a", "edits": [{"old_string": 1, "new_string": "y"}]}
    assert check_input(schema, wrong) == "'edits[0].old_string' must be a string, got integer 1"
    assert check_input(schema, {"path": "a", "edits": {}}) == "'edits' must be an array, got object"


@pytest.mark.parametrize(
    ("input", "problem"),
    [
        ({"command": ""}, "'command' must not be empty"),
        ({"command": "ls", "timeout": 0}, "'timeout' must be greater than 0, got 0"),
        ({"command": "ls", "timeout": 601}, "'timeout' must be at most 600, got 601"),
        ({"command": "ls", "timeout": 0.5}, None),
    ],
)
def test_bash_schema_bounds(input: JsonObject, problem: str | None) -> None:
    assert check_input(BashTool.input_schema, input) == problem


def test_a_non_object_input_is_refused() -> None:
    assert check_input(ReadTool.input_schema, ["a"]) == "input must be an object, got array"


async def test_invalid_input_becomes_an_error_result(ctx: ToolContext) -> None:
    result = await run(ReadTool(), ctx, path="a", offset=-1)
    assert result.is_error
    assert result.text == "invalid read input: 'offset' must be at least 1, got -1"


class _Exploding:
    name = "boom"
    input_schema: JsonObject = {"type": "object", "properties": {}}

    def __init__(self, error: Exception) -> None:
        self.error = error

    @guarded
    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        raise self.error


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (PermissionError(13, "Permission denied", "/x"), "boom failed: Permission denied (/x)"),
        (ValueError("bad"), "boom failed: ValueError: bad"),
    ],
)
async def test_exceptions_never_escape_a_tool(
    error: Exception, message: str, ctx: ToolContext
) -> None:
    result = await _Exploding(error).execute({}, ctx)
    assert result.is_error
    assert result.text == message
