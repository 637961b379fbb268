"""Activation durability: the checkpoint, `## Activated Skills` after compaction, forks, recall."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from shard_core.capabilities.skills.activation import (
    HEADING,
    MAX_ACTIVATED_BYTES,
    activated_section,
)
from shard_core.contracts import ExtensionApi, ToolContext
from shard_core.engine.config import CompactionConfig, ShardConfig
from shard_core.engine.session_store import SessionStore, load_lineage
from shard_core.sdk import Agent, create_agent
from shard_core.types import (
    CheckpointEntry,
    CompactionDetails,
    CompactionEntry,
    ProviderRequest,
    SkillCheckpoint,
    ToolResult,
    ToolResultDetails,
    ToolResultEntry,
)
from tests.fixtures.function_provider import FunctionProvider, scripted
from tests.unit.capabilities.skills.conftest import write_skill

BODY = "Always write the word PELICAN-7 at the top of every report."


async def _agent(tmp_path: Path, provider: FunctionProvider, **kw: Any) -> Agent:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)

    def fn(api: ExtensionApi) -> None:
        api.register_provider("fn", lambda model: provider)

    # keep nothing verbatim at a manual compaction: the load result is folded for sure
    config = ShardConfig(compaction=CompactionConfig(keep_recent_tokens=0))
    return await create_agent(
        cwd=ws,
        model="fn/any",
        home=tmp_path / "home",
        config=config,
        env={"HOME": str(tmp_path / "user")},
        extensions=[("test.fn", fn)],
        **kw,
    )


def _system(request: ProviderRequest) -> str:
    return "\n".join(s.text for s in request.system)


def _messages(request: ProviderRequest) -> str:
    return request.model_dump_json()


async def test_load_checkpoint_then_rehydrated_after_compaction_and_recall_finds_it(
    tmp_path: Path,
) -> None:
    write_skill(tmp_path / "home" / "skills", "r", "report-style", "How to write reports.", BODY)
    provider = FunctionProvider(
        scripted(
            {"tool_calls": [("load_skill", {"name": "report-style"})]},
            "loaded",
            "second turn",
            "third turn",
        )
    )
    agent = await _agent(tmp_path, provider)
    try:
        await agent.run("use the report-style skill")
        branch = agent.session.store.branch()
        [result] = [e for e in branch if isinstance(e, ToolResultEntry)]
        [checkpoint] = [e for e in branch if isinstance(e, CheckpointEntry)
                        and isinstance(e.details, SkillCheckpoint)]  # fmt: skip
        skill_md = tmp_path / "home" / "skills" / "r" / "SKILL.md"
        assert checkpoint.details == SkillCheckpoint(
            name="report-style", path=str(skill_md), source_entry_id=result.id
        )
        assert checkpoint.parent_id == result.id  # persisted right after its tool result

        await agent.run("go on")
        # while the tool result is live, the body is not repeated in the prompt
        assert BODY in _messages(provider.requests[2])
        assert HEADING not in _system(provider.requests[2])

        event = await agent.session.compact("manual", force=True)
        assert event is not None
        await agent.run("and now?")
        after = provider.requests[3]
        assert BODY not in "".join(m.model_dump_json() for m in after.messages)
        section = next(s for s in after.system if s.name == "skills:activated")
        assert section.text.startswith(HEADING)
        assert section.text.count(BODY) == 1
        assert result.details.result.text in section.text  # the very envelope the model read
        assert not section.stable

        recall = agent.session.tools.get("recall")
        assert recall is not None
        ctx = ToolContext(
            cwd=agent.session.config.cwd,
            roots=[agent.session.config.cwd],
            agent_id=agent.agent_id,
            session_id=agent.session.store.session_id,
            call_id="t",
        )
        found = await recall.execute({"query": "PELICAN-7"}, ctx)
        assert not found.is_error
        assert "PELICAN-7" in found.text
        assert "load_skill" in found.text
    finally:
        await agent.close()


async def test_a_fork_from_before_the_load_never_sees_the_activation(tmp_path: Path) -> None:
    write_skill(tmp_path / "home" / "skills", "r", "report-style", "How to write reports.", BODY)
    provider = FunctionProvider(
        scripted("first", {"tool_calls": [("load_skill", {"name": "report-style"})]}, "ok")
    )
    agent = await _agent(tmp_path, provider)
    try:
        await agent.run("hello")
        before_load = agent.session.store.leaf_id
        await agent.run("use the report-style skill")
        await agent.session.compact("manual", force=True)
        assert activated_section(agent.session.store.branch()) is not None
        fork_id = agent.fork(before_load)
    finally:
        await agent.close()

    fork_provider = FunctionProvider(scripted("in the fork", "after compaction"))
    forked = await _agent(tmp_path, fork_provider, resume=fork_id)
    try:
        await forked.run("continue here")
        await forked.session.compact("manual", force=True)
        await forked.run("and again")
    finally:
        await forked.close()
    for request in fork_provider.requests:
        assert HEADING not in _system(request)
        assert BODY not in _system(request) + _messages(request)
    # the parent's log still has the activation: only the branch decides
    parent_id = agent.session.store.session_id
    parent = SessionStore.open(next((tmp_path / "home").rglob(f"{parent_id}.jsonl")))
    try:
        load_lineage(parent, tmp_path / "home")
        assert activated_section(parent.branch()) is not None
    finally:
        parent.close()


async def test_an_oversized_skill_is_an_error_and_leaves_no_checkpoint(tmp_path: Path) -> None:
    write_skill(tmp_path / "home" / "skills", "big", "huge", "Too big.", "x" * (129 * 1024))
    provider = FunctionProvider(scripted({"tool_calls": [("load_skill", {"name": "huge"})]}))
    agent = await _agent(tmp_path, provider)
    try:
        await agent.run("use huge")
        branch = agent.session.store.branch()
    finally:
        await agent.close()
    [result] = [e for e in branch if isinstance(e, ToolResultEntry)]
    assert result.details.result.is_error
    assert "the limit is 131072 bytes, so it was not loaded" in result.details.result.text
    assert not [e for e in branch if isinstance(e, CheckpointEntry)
                and isinstance(e.details, SkillCheckpoint)]  # fmt: skip


def test_a_tool_cannot_write_a_mode_checkpoint_through_an_intent(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from shard_core.engine.step import StepRunner, StepState

    store = SessionStore.create(tmp_path / "s", tmp_path)
    try:
        step = StepRunner(SimpleNamespace(store=store), StepState("turn", asyncio.Event()))  # type: ignore[arg-type]
        step._persist_intent({"kind": "mode", "mode": "build"}, "x")  # pyright: ignore[reportPrivateUsage]
        assert not [e for e in store.entries if isinstance(e, CheckpointEntry)]
        step._persist_intent({"kind": "skill", "name": "a", "path": "/p"}, "x")  # pyright: ignore[reportPrivateUsage]
        [entry] = [e for e in store.entries if isinstance(e, CheckpointEntry)]
        assert entry.details == SkillCheckpoint(name="a", path="/p", source_entry_id="x")
    finally:
        store.close()


# ---------------------------------------------------------------- the section, from a log


def _log_activation(store: SessionStore, name: str, text: str) -> str:
    result = store.append(
        ToolResultEntry,
        ToolResultDetails(
            tool_call_id=f"call-{name}", name="load_skill", result=ToolResult.ok(text)
        ),
    )
    store.append(
        CheckpointEntry, SkillCheckpoint(name=name, path=f"/{name}", source_entry_id=result.id)
    )
    return result.id


def _compact(store: SessionStore) -> None:
    first = store.branch()[1].id
    store.append(
        CompactionEntry,
        CompactionDetails(
            summary="s",
            first_kept_entry_id=None,
            range_first_id=first,
            range_last_id=store.leaf_id or first,
            tokens_before=10,
            tokens_after=1,
            compactor="test",
            index=0,
        ),
    )


def test_newest_first_whole_bodies_within_160_kib_and_one_per_name(tmp_path: Path) -> None:
    store = SessionStore.create(tmp_path / "s", tmp_path)
    try:
        kib = 1024
        _log_activation(store, "old", "OLD " + "o" * (30 * kib))
        _log_activation(store, "big", "BIG " + "b" * (100 * kib))
        _log_activation(store, "mid", "MID " + "m" * (70 * kib))
        _log_activation(store, "new", "NEW v1 " + "n" * kib)
        _log_activation(store, "new", "NEW v2 " + "n" * kib)  # the same skill loaded again
        assert activated_section(store.branch()) is None  # nothing folded yet
        _compact(store)
        section = activated_section(store.branch())
    finally:
        store.close()
    assert section is not None
    text = section.text
    # newest first: new (v2 only), mid, then big does not fit (1+70+100 > 160), old does
    assert text.index("NEW v2") < text.index("MID") < text.index("OLD")
    assert "NEW v1" not in text
    assert "BIG " not in text
    assert "Not repeated here (over the 160 KiB limit for this section): big." in text
    bodies = ["NEW v2 " + "n" * 1024, "MID " + "m" * 70 * 1024, "OLD " + "o" * 30 * 1024]
    assert sum(len(b) for b in bodies) <= MAX_ACTIVATED_BYTES
    assert all(b in text for b in bodies)  # never a partial body


def test_the_incremental_scan_agrees_with_a_full_one_and_follows_a_branch_switch(
    tmp_path: Path,
) -> None:
    from shard_core.capabilities.skills.activation import ActivationScan

    store = SessionStore.create(tmp_path / "s", tmp_path)
    try:
        scan = ActivationScan()
        assert scan.section(store.branch()) is None
        fork_point = store.leaf_id
        _log_activation(store, "first", "FIRST body")
        assert scan.section(store.branch()) is None  # not folded yet
        _compact(store)
        incremental = scan.section(store.branch())
        assert incremental == activated_section(store.branch())
        assert incremental is not None
        assert "FIRST body" in incremental.text
        _log_activation(store, "second", "SECOND body")  # live again: not repeated
        assert scan.section(store.branch()) == activated_section(store.branch())
        # another branch of the same log, from before the load: nothing to rehydrate
        other = store.append(
            ToolResultEntry,
            ToolResultDetails(tool_call_id="x", name="read", result=ToolResult.ok("r")),
            parent_id=fork_point,
        )
        branch = store.branch(other.id)
        assert [e.id for e in branch][-1] == other.id
        assert scan.section(branch) is None
        assert activated_section(branch) is None
    finally:
        store.close()
