"""RecallTool: the Tool contract, input validation, and answers as ToolResults."""

from __future__ import annotations

from pathlib import Path

import pytest

from shard_core.contracts import Tool, ToolContext
from shard_core.engine.recall import RecallRequest, RecallTool, directory_resolver, parse_request
from shard_core.engine.recall.tool import ACROSS, FIELDS
from shard_core.types import JsonObject
from shard_core.types.errors import SessionNotFoundError
from tests.fixtures.sessions.builders import SessionBuilder


@pytest.fixture
def sessions(tmp_path: Path) -> Path:
    b = SessionBuilder("s-tool")
    b.user("Remember: the deploy key lives in ops/keys/README")
    b.bash("ls ops/keys", "README\nrotate.sh", 0)
    b.save(tmp_path / "s-tool.jsonl")
    return tmp_path


def ctx(tmp_path: Path, session_id: str = "s-tool") -> ToolContext:
    return ToolContext(
        cwd=tmp_path, roots=[tmp_path], agent_id="a", session_id=session_id, call_id="c"
    )


def test_it_is_a_read_only_tool_named_recall(sessions: Path) -> None:
    tool = RecallTool(directory_resolver(sessions))
    assert isinstance(tool, Tool)
    assert (tool.name, tool.read_only) == ("recall", True)
    assert set(tool.input_schema["properties"]) == {
        "scope", "query", "mode", "recent", "expand", "cursor", "sessions", "home", "session"
    }  # fmt: skip


async def test_a_query_answers_with_indices_and_a_cursor(sessions: Path) -> None:
    result = await RecallTool(directory_resolver(sessions)).execute(
        {"query": "deploy key"}, ctx(sessions)
    )
    assert not result.is_error
    assert result.text.splitlines()[1] == (
        "#1 user: Remember: the [deploy] [key] lives in ops/[keys]/README"
    )
    assert result.details == {"indices": [1, 2], "next_cursor": None, "total": 2}


async def test_expand_returns_the_entry_whole(sessions: Path) -> None:
    result = await RecallTool(directory_resolver(sessions)).execute({"expand": [3]}, ctx(sessions))
    assert result.text == "#3 tool_result id=e00003\nREADME\nrotate.sh\n\nexit code 0"


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (
            {"scope": "yesterday"},
            'scope must be "all", "latest" or "compaction:N", not \'yesterday\'',
        ),
        ({"mode": "fuzzy"}, "mode must be one of search, regex, touched, not 'fuzzy'"),
        ({"expand": [1, -2]}, "expand must be a list of entry numbers (#N)"),
        ({"expand": "3"}, "expand must be a list of entry numbers (#N)"),
        ({"recent": 0}, "recent must be an integer from 1 to 100"),
        ({"cursor": 5}, "cursor must be the string a previous recall result gave"),
        ({"query": ["a"]}, "query must be a string"),
    ],
)
async def test_bad_input_is_an_error_result_naming_the_problem(
    sessions: Path, data: JsonObject, problem: str
) -> None:
    assert isinstance(parse_request(data), str)
    result = await RecallTool(directory_resolver(sessions)).execute(data, ctx(sessions))
    assert result.is_error
    assert result.text == f"recall: {problem}"


def test_parse_request_fills_defaults() -> None:
    assert parse_request({}) == RecallRequest()
    assert parse_request({"scope": "compaction:2", "expand": [4], "cursor": "10"}) == RecallRequest(
        scope="compaction:2", expand=(4,), cursor="10"
    )


async def test_an_unknown_session_or_a_regex_refusal_is_an_error_result(sessions: Path) -> None:
    tool = RecallTool(directory_resolver(sessions))
    missing = await tool.execute({"query": "x"}, ctx(sessions, "s-nope"))
    assert missing.is_error
    assert missing.text.startswith("recall failed: no session log at ")
    refused = await tool.execute({"query": "(a+)+$", "mode": "regex"}, ctx(sessions))
    assert refused.is_error
    assert refused.text.startswith("recall: pattern too expensive")


async def test_an_unknown_field_is_named_not_ignored(sessions: Path) -> None:
    tool = RecallTool(directory_resolver(sessions))
    result = await tool.execute({"query": "x", "bogus": 1}, ctx(sessions))
    assert result.is_error
    assert result.text.startswith("recall: unknown field 'bogus' (allowed: scope, query,")
    assert set(FIELDS) | set(ACROSS) == set(tool.input_schema["properties"])


async def test_a_resolver_that_raises_is_reported_not_raised(sessions: Path) -> None:
    def broken(session_id: str) -> list[Path]:
        raise SessionNotFoundError(f"lineage of {session_id} is gone")

    result = await RecallTool(broken).execute({}, ctx(sessions))
    assert (result.is_error, result.text) == (True, "recall failed: lineage of s-tool is gone")
