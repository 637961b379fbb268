"""Compaction with and without the code index: without it the summary is what the regex
catalog makes (no extension changes a byte); with it the Type Catalog also carries the
signatures of files changed in the folded span, from the index."""

from __future__ import annotations

from pathlib import Path

from shard_core.contracts.compactor import CompactionInput
from shard_core.engine.compaction import DeterministicCompactor
from shard_core.sdk import Agent
from tests.fixtures.function_provider import FunctionProvider, scripted
from tests.unit.capabilities.code_index.conftest import make_agent

NEW_FUNCTION = "def scale(v: float, k: float = 2.0) -> float:\n    return v * k\n\n\n"


def sections(summary: str) -> dict[str, str]:
    parts = summary.split("\n## ")
    return {part.split("\n", 1)[0]: part for part in parts[1:]}


async def session(tmp_path: Path) -> Agent:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "calc.py").write_text("def add(a: int, b: int) -> int:\n    return a + b\n")
    (ws / "shapes.py").write_text("class Square:\n    def area(self) -> float:\n        return 1\n")
    provider = FunctionProvider(
        scripted(
            {"tool_calls": [("read", {"path": "shapes.py"})]},
            {
                "tool_calls": [
                    (
                        "edit",
                        {
                            "path": "calc.py",
                            "old_string": "def add",
                            "new_string": NEW_FUNCTION + "def add",
                        },
                    )
                ]
            },
            "added scale",
            "ok",
            "ok",
        )
    )
    agent = await make_agent(tmp_path, provider)
    try:
        await agent.run("add a scale function to calc.py")
        for _ in range(3):
            await agent.run("and then? " + "words " * 200)
    finally:
        await agent.close()
    return agent


def summarize(agent: Agent, compactor: DeterministicCompactor) -> str:
    branch = agent.session.store.branch()
    details = compactor.compact(CompactionInput(branch, 5_000, 100_000, 50_000, "manual", 0))
    assert details is not None
    return details.summary


async def test_the_summary_is_unchanged_without_and_richer_with_the_index(tmp_path: Path) -> None:
    agent = await session(tmp_path)
    code = agent.host.code_index()
    assert code is not None

    plain = summarize(agent, DeterministicCompactor(keep_recent_tokens=200))
    extended = DeterministicCompactor(keep_recent_tokens=200)
    extended.extend([], None)  # a host with no code intelligence registered
    with_index = DeterministicCompactor(keep_recent_tokens=200)
    with_index.extend([], code)
    enriched = summarize(agent, with_index)

    assert summarize(agent, extended) == plain
    assert "def scale" not in plain
    catalog = sections(plain)["Type Catalog"]
    assert catalog.splitlines()[1:] == ["- shapes.py: class Square; def area(self) -> float"]
    richer = sections(enriched)["Type Catalog"].splitlines()[1:]
    assert richer == [
        "- shapes.py: class Square; def area(self) -> float",
        "- calc.py: def scale(v: float, k: float = 2.0) -> float; def add(a: int, b: int) -> int",
    ]
    others = {k: v for k, v in sections(plain).items() if k != "Type Catalog"}
    assert others == {k: v for k, v in sections(enriched).items() if k != "Type Catalog"}
