"""A rule that allows a path outside the workspace is not contradicted by the tool: an explicit
`Read(/abs/path)` rule widens containment for exactly that path — what the system prompt says.
Any other outside path stays refused, and only a rule, a grant or a person widens it."""

from __future__ import annotations

from pathlib import Path

import pytest

from shard_core.contracts import ExtensionApi, PermissionOutcome
from shard_core.engine.config import ShardConfig
from shard_core.engine.permissions.explain import Explanation
from shard_core.engine.permissions.gate import reaching
from shard_core.sdk import create_agent
from shard_core.types import Allow, CheckpointEntry, ContextCheckpoint, ToolResultEntry
from tests.fixtures.function_provider import FunctionProvider, scripted


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.setenv("SHARD_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir()
    outside.mkdir()
    (outside / "notes.txt").write_text("the allowed outside note\n")
    (outside / "beside.txt").write_text("a file no rule names\n")
    return work, outside


async def test_an_absolute_read_rule_reaches_exactly_its_path(places: tuple[Path, Path]) -> None:
    work, outside = places
    allowed, beside = outside / "notes.txt", outside / "beside.txt"
    provider = FunctionProvider(
        scripted(
            {"tool_calls": [("read", {"path": str(allowed)})]},
            {"tool_calls": [("read", {"path": str(beside)})]},
            {"tool_calls": [("ls", {"path": str(outside)})]},
            "done",
        )
    )

    def install(api: ExtensionApi) -> None:
        api.register_provider("fn", lambda _model: provider)

    agent = await create_agent(
        cwd=work,
        model="fn/test",
        config=ShardConfig(),
        env={},
        extensions=[("test.fn", install)],
        allow=[f"Read({allowed})"],
    )
    try:
        await agent.run("read the notes outside")
        entries = list(agent.session.store.entries)
    finally:
        await agent.close()
    results = [e.details.result for e in entries if isinstance(e, ToolResultEntry)]
    assert [r.is_error for r in results] == [False, True, True]
    assert "the allowed outside note" in results[0].text
    # beside it, no rule: asked, and with nobody to answer the headless policy denies
    assert results[1].text.startswith("permission denied:")
    assert "a file no rule names" not in results[1].text
    assert results[2].text.startswith("permission denied:")
    # the prompt says the same as the behaviour
    system = next(
        "\n".join(s["text"] for s in e.details.system)
        for e in entries
        if isinstance(e, CheckpointEntry) and isinstance(e.details, ContextCheckpoint)
    )
    assert "The file tools reach a path outside it only when an allow rule\nnames that path" in (
        system
    )
    assert "exactly that path, nothing beside it" in system


@pytest.mark.parametrize(
    ("source", "widened"),
    [("rule", True), ("grant", True), ("client", True), ("headless", False), ("mode", False)],
)
def test_only_a_rule_a_grant_or_a_person_widens(source: str, widened: bool) -> None:
    target = Path("/srv/data/x.csv")
    found = Explanation("ask", "is outside the workspace", outside=target)
    outcome = reaching(PermissionOutcome(Allow(), source, "someone"), found)
    assert outcome.reach == ((target,) if widened else ())
