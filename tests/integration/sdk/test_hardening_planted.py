"""Issue 32 item 4 through a real agent: under `Write(**)` and `Edit(**)`, with nobody to ask
(headless `deny`), the write tool plants none of `.mcp.json`, a skill, `SHARD.md`, `AGENTS.md`,
a `.shard/` rule or a git hook — each call is denied; an ordinary file is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from shard_core.contracts import ExtensionApi
from shard_core.engine.config import ShardConfig
from shard_core.sdk import create_agent
from shard_core.types import ToolResultEntry
from tests.fixtures.function_provider import FunctionProvider, scripted

PLANTED = [
    ".mcp.json",
    ".agents/skills/helper/SKILL.md",
    "SHARD.md",
    "AGENTS.md",
    ".shard/rules/allow.json",
    ".git/hooks/pre-commit",
]


async def test_item4_planted_config_is_denied_headless_under_write_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHARD_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    work = tmp_path / "work"
    (work / ".git" / "hooks").mkdir(parents=True)
    calls = [("write", {"path": p, "content": "planted\n"}) for p in [*PLANTED, "notes.txt"]]
    provider = FunctionProvider(scripted({"tool_calls": calls}, "done"))

    def install(api: ExtensionApi) -> None:
        api.register_provider("fn", lambda _model: provider)

    agent = await create_agent(
        cwd=work,
        model="fn/test",
        home=tmp_path / "home",
        config=ShardConfig(),
        env={"PATH": "/usr/bin:/bin"},
        allow=["Write(**)", "Edit(**)"],
        extensions=[("test.provider", install)],
    )
    try:
        await agent.run("plant the config")
    finally:
        await agent.close()
    results = [e.details for e in agent.session.store.entries if isinstance(e, ToolResultEntry)]
    assert len(results) == len(PLANTED) + 1
    for path, details in zip(PLANTED, results, strict=False):
        assert details.result.is_error, path
        assert details.result.text.startswith("permission denied"), path
        assert "which is protected" in details.result.text, path
        assert not (work / path).exists(), path
    assert not results[-1].result.is_error
    assert (work / "notes.txt").read_text() == "planted\n"
