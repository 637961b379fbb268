"""Recall and the workspace edge, through the real gate: another workspace's sessions are asked
about (interactive) like a read outside the workspace, no rule waves them through, this
workspace's sessions need no question, and a session id is never a path, a pattern or a link
out of SHARD_HOME. (The end-to-end probes are in tests/integration/cli/test_hardening_recall.py.)
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from shard_core.contracts import PermissionQuery, ToolContext
from shard_core.engine.permissions import GrantStore, RuleGate, RuleSet, explain
from shard_core.engine.recall import RecallTool
from shard_core.engine.recall.lineage import lineage_paths
from shard_core.engine.session import AgentSession
from shard_core.engine.session_store import SessionStore, find_session
from shard_core.types import Allow, Deny, PermissionDetails
from shard_core.types.errors import SessionNotFoundError
from tests.fixtures.function_provider import FunctionProvider, scripted

Make = Callable[..., AgentSession]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SHARD_HOME", str(tmp_path / "home"))  # where grants would be kept
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    return tmp_path / "home"


async def _log(make: Make, folder: Path, cwd: Path, prompt: str, answer: str) -> Path:
    store = SessionStore.create(folder, cwd)
    await make(FunctionProvider(scripted(answer)), store=store).run(prompt)
    return store.path


class World:
    """Project A's session (another workspace), B's earlier one, and B's current one."""

    def __init__(self, home: Path, a: Path, b: Path, b_old: Path, b_now: Path) -> None:
        self.home, self.a, self.b, self.b_old, self.b_now = home, a, b, b_old, b_now
        self.project_a = home.parent / "project-a"
        self.tool = RecallTool(lambda _sid: [b_now], home=home)
        self.records: list[PermissionDetails] = []

    def query(self, **input: object) -> PermissionQuery:
        ctx = ToolContext(cwd=self.b, roots=[self.b], agent_id="b", session_id=self.b_now.stem,
                          call_id="c")  # fmt: skip
        return PermissionQuery("recall", dict(input), True, self.b, "c", "t", "b", ctx)

    def gate(self, rules: RuleSet | None = None, **options: object) -> RuleGate:
        async def record(details: PermissionDetails) -> None:
            self.records.append(details)

        return RuleGate(
            rules=rules or RuleSet.parse("test"), grants=GrantStore("agent-b"), record=record,
            tools={"recall": self.tool}.get, **options,  # type: ignore[arg-type]
        )  # fmt: skip


@pytest.fixture
async def world(make_session: Make, home: Path, tmp_path: Path, workspace: Path) -> World:
    project_a = tmp_path / "project-a"
    project_a.mkdir()
    a = await _log(make_session, home / "agents" / "agent-a" / "sessions", project_a,
                   "where is the vault", "The vault code is 4242 under the staircase.")  # fmt: skip
    b_old = await _log(make_session, home / "sessions", workspace,
                       "where is the vault", "Our vault notes: the blue door.")  # fmt: skip
    b_now = await _log(make_session, home / "sessions", workspace, "new task", "ok")
    return World(home, a, workspace, b_old, b_now)


async def _asked(gate: RuleGate) -> str:
    for _ in range(1000):
        if prompts := gate.pending.prompts():
            return prompts[0].request_id
        await asyncio.sleep(0)
    raise AssertionError("the gate never asked")


@pytest.mark.parametrize("reach", ["home", "session"])
async def test_interactive_asks_before_recalling_another_workspace(
    world: World, reach: str
) -> None:
    input = (
        {"sessions": "all", "home": True, "query": "vault staircase"}
        if reach == "home"
        else {"session": world.a.stem, "query": "staircase"}
    )
    gate = world.gate(has_responder=lambda: True)
    task = asyncio.create_task(gate.authorize(world.query(**input)))
    request_id = await _asked(gate)
    prompt = gate.pending.prompts()[0]

    assert "outside the workspace" in prompt.prompt
    assert prompt.suggested_rule is None  # nothing to "allow always": no rule names the place
    gate.respond(request_id, "allow", "alice", "interactive")
    assert (await task).decision == Allow()
    allowed = await world.tool.execute(input, world.query(**input).tool_context())
    assert "4242" in allowed.text  # once a person said yes, A's session is read


async def test_no_rule_waves_another_workspace_through(world: World) -> None:
    bare = RuleSet.parse("test", allow=("Recall",))
    query = world.query(session=world.a.stem, query="staircase")

    found = explain(query, bare, tool=world.tool)
    headless = await world.gate(
        bare, has_responder=lambda: False, headless_policy="allow_if_rule_matches"
    ).authorize(query)

    assert (found.decision, found.ask) == ("ask", "guarded")
    assert isinstance(headless.decision, Deny)
    assert f"session {world.a.stem} of {world.project_a}" in found.reason


async def test_this_workspaces_sessions_need_no_question(world: World, tmp_path: Path) -> None:
    rules = RuleSet.parse("test")
    same = world.query(session=world.b_old.stem, query="vault")
    search = world.query(sessions="all", query="vault")
    ctx = same.tool_context()

    assert explain(same, rules, tool=world.tool).decision == "allow"
    assert explain(search, rules, tool=world.tool).decision == "allow"
    headless = await world.gate(has_responder=lambda: False).authorize(same)
    assert headless.decision == Allow()
    found = await world.tool.execute({"sessions": "all", "query": "vault"}, ctx)
    assert [s["session"] for s in found.details["sessions"]] == [world.b_old.stem]
    read = await world.tool.execute({"session": world.b_old.stem, "query": "vault"}, ctx)
    assert "blue door" in read.text
    # a second root counts as the workspace too
    two = ToolContext(cwd=world.b, roots=[world.b, world.project_a],
                      agent_id="b", session_id=world.b_now.stem, call_id="c")  # fmt: skip
    assert world.tool.reach({"session": world.a.stem}, two) == []


async def test_a_log_linked_out_of_shard_home_is_refused(world: World, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere" / "s-00000000000000aa.jsonl"
    outside.parent.mkdir()
    outside.write_bytes(world.a.read_bytes())
    (world.home / "sessions" / outside.name).symlink_to(outside)
    ctx = world.query().tool_context()

    result = await world.tool.execute({"session": outside.stem, "query": "staircase"}, ctx)

    assert result.is_error
    assert "leads outside SHARD_HOME" in result.text


def test_a_session_id_is_never_a_path_or_a_pattern(world: World) -> None:
    for name in ("*", "s-*", "../sessions/" + world.b_old.stem, "../../project-a/x", ".x"):
        with pytest.raises(SessionNotFoundError):
            find_session(world.home, name)
    assert find_session(world.home, world.a.stem) == world.a


def test_a_header_naming_a_parent_path_ends_the_lineage(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "x.jsonl").write_text("")
    logs = tmp_path / "logs"
    logs.mkdir()
    details = {"session_id": "s-child", "cwd": "/w", "parent_session": "../out/x"}
    header = {"v": 1, "id": "h", "parentId": None, "ts": 1.0, "type": "session", "details": details}
    (logs / "s-child.jsonl").write_text(json.dumps(header) + "\n")

    assert lineage_paths(logs / "s-child.jsonl") == [logs / "s-child.jsonl"]
