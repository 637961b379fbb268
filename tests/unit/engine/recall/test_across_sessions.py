"""Recall across sessions: this workspace's other sessions by default, all of SHARD_HOME with
`home`, each result naming its session and title; ranked by relevance and recency."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from shard_core.contracts import ToolContext
from shard_core.engine.recall import RecallTool
from shard_core.engine.recall.across import search_sessions
from shard_core.engine.session import AgentSession
from shard_core.engine.session_store import SessionStore
from tests.fixtures.function_provider import FunctionProvider, scripted

Make = Callable[..., AgentSession]


def _ctx(cwd: Path, session_id: str) -> ToolContext:
    return ToolContext(cwd=cwd, roots=[cwd], agent_id="a", session_id=session_id, call_id="c")


async def _session(make: Make, home: Path, cwd: Path, prompt: str, answer: str) -> AgentSession:
    store = SessionStore.create(home / "sessions", cwd)
    session = make(FunctionProvider(scripted(answer)), store=store)
    await session.run(prompt)
    return session


async def test_recall_finds_a_fact_from_another_session_of_this_workspace_and_names_it(
    make_session: Make, tmp_path: Path, workspace: Path
) -> None:
    home = tmp_path / "home"
    other_ws = tmp_path / "elsewhere"
    other_ws.mkdir()
    fact = await _session(
        make_session, home, workspace, "Where is the staging database?",
        "The staging database listens on port 6543 behind the bastion.",
    )  # fmt: skip
    await _session(
        make_session, home, other_ws, "Staging database notes",
        "Another project's staging database is on port 7777.",
    )  # fmt: skip
    current = await _session(make_session, home, workspace, "new task", "ok")
    tool = RecallTool(lambda _sid: [current.store.path], home=home)
    ctx = _ctx(workspace, current.store.session_id)

    result = await tool.execute({"sessions": "all", "query": "staging database port"}, ctx)
    assert not result.is_error, result.text
    assert result.details["sessions"] == [
        {
            "session": fact.store.session_id,
            "title": "Where is the staging database?",
            "workspace": str(workspace),
        }
    ]
    assert f"{fact.store.session_id} “Where is the staging database?”" in result.text
    assert "6543 behind the bastion" in result.text
    assert "7777" not in result.text  # another workspace's session

    everywhere = await tool.execute(
        {"sessions": "all", "query": "staging database port", "home": True}, ctx
    )
    assert {s["workspace"] for s in everywhere.details["sessions"]} == {
        str(workspace),
        str(other_ws),
    }
    # then into that session, like this one
    inside = await tool.execute({"session": fact.store.session_id, "query": "bastion"}, ctx)
    assert not inside.is_error, inside.text
    assert "6543" in inside.text


async def test_bad_cross_session_requests_say_what_to_fix(
    make_session: Make, tmp_path: Path, workspace: Path
) -> None:
    home = tmp_path / "home"
    current = await _session(make_session, home, workspace, "a", "b")
    tool = RecallTool(lambda _sid: [current.store.path], home=home)
    ctx = _ctx(workspace, current.store.session_id)
    cases = {
        'sessions: "all" needs a query (word search); expand within one session': {
            "sessions": "all"
        },
        'sessions must be "this" or "all", not \'some\'': {"sessions": "some", "query": "x"},
        'home widens sessions: "all"; give sessions: "all" too': {"home": True, "query": "x"},
        "home must be true or false": {"sessions": "all", "home": "yes", "query": "x"},
    }
    for message, bad in cases.items():
        result = await tool.execute(bad, ctx)
        assert result.is_error
        assert result.text == f"recall: {message}"
    malformed = await tool.execute({"session": "s-nope", "query": "x"}, ctx)
    assert malformed.is_error
    assert malformed.text.startswith('recall: session must be a session id like "s-')
    missing = await tool.execute({"session": "s-0123456789abcdef", "query": "x"}, ctx)
    assert missing.is_error
    assert "no session 's-0123456789abcdef'" in missing.text


async def test_sessions_rank_by_relevance_weighed_by_recency(
    make_session: Make, tmp_path: Path, workspace: Path
) -> None:
    home = tmp_path / "home"
    old = await _session(make_session, home, workspace, "rotation", "key rotation key rotation")
    new = await _session(make_session, home, workspace, "rotation", "key rotation key rotation")
    last = max(e.ts for e in new.store.entries)
    ranked = search_sessions(home, "key rotation", now=last)
    assert [m.info.session_id for m in ranked][:1] == [new.store.session_id]
    # a week later for both, but the old one is a week older still: it ranks lower
    old_score = next(m.score for m in ranked if m.info.session_id == old.store.session_id)
    new_score = ranked[0].score
    assert old_score <= new_score
