"""The extension guide's example runs for real: docs/examples/word_count_extension.py, copied to
SHARD_HOME/extensions/ and loaded the way every agent loads extensions, gives a working tool,
slash command, event handler and provider (the provider drives the turn: no key, no server)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from shard_core.engine.config import ShardConfig
from shard_core.sdk import create_agent
from shard_core.types import AssistantMessage, MessageEntry, TextBlock, ToolResultEntry
from shard_kernel.slash import help_text

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "docs" / "examples" / "word_count_extension.py"
GUIDE = ROOT / "docs" / "EXTENSIONS.md"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "shard-home"
    (home / "extensions").mkdir(parents=True)
    shutil.copy(EXAMPLE, home / "extensions" / EXAMPLE.name)
    monkeypatch.setenv("SHARD_HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    return home


async def test_the_guides_example_extension_works_end_to_end(home: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("one two three\nfour five\n")
    agent = await create_agent(cwd=work, model="count/any", home=home, config=ShardConfig(), env={})
    try:
        name = f"extensions/{EXAMPLE.name}"
        assert name in agent.host.installed
        assert [d for d in agent.host.diagnostics if d.level == "error"] == []
        assert agent.session.tools.get("word_count") is not None  # the tool

        before = agent.host.command("words").handler([])  # type: ignore[union-attr]
        end = await agent.run("count the words in notes.txt")  # the provider drives the turn
        after = agent.host.command("words").handler([])  # type: ignore[union-attr]
        listed = help_text(agent)
        entries = list(agent.session.store.entries)
    finally:
        await agent.close()

    assert end.reason == "completed"
    [result] = [e.details.result for e in entries if isinstance(e, ToolResultEntry)]
    assert (result.is_error, result.text) == (False, "notes.txt: 5 words")
    last = [e.details.message for e in entries if isinstance(e, MessageEntry)][-1]
    assert isinstance(last, AssistantMessage)
    assert last.content == [TextBlock(text="The tool says: notes.txt: 5 words")]
    assert before == "No word counts yet."
    assert after == "Word counts so far:\n- notes.txt: 5 words"  # the handler saw the result
    assert "| `/words` | the word counts this agent made (extension extensions" in listed


async def test_the_example_tool_stays_in_the_workspace(home: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    agent = await create_agent(cwd=work, model="count/any", home=home, config=ShardConfig(), env={})
    try:
        await agent.run("count the words in ../../etc/passwd")
        entries = list(agent.session.store.entries)
    finally:
        await agent.close()
    [result] = [e.details.result for e in entries if isinstance(e, ToolResultEntry)]
    assert result.is_error
    assert result.text.startswith("path escapes the workspace")


def test_the_guide_names_the_example_and_every_api_method() -> None:
    guide = GUIDE.read_text(encoding="utf-8")
    assert "docs/examples/word_count_extension.py" in guide
    from shard_core.contracts import ExtensionApi

    methods = [m for m in vars(ExtensionApi) if not m.startswith("_")]
    missing = [m for m in methods if f"`{m}" not in guide]
    assert missing == []
