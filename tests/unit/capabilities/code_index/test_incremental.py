"""The index stays current by re-parsing only what changed: an edit through the edit tool
re-parses that one file (counted) and its new symbol is found; a shell command's changes are
found by re-stat; the index persists per workspace, respects .gitignore and is bounded."""

from __future__ import annotations

from pathlib import Path

from shard_core.capabilities.code_index import CodeIndex, CodeIntelligence
from shard_core.protocol.events import Event, FileMutatedEvent
from tests.fixtures.function_provider import FunctionProvider, scripted
from tests.unit.capabilities.code_index.conftest import make_agent, results


def workspace(tmp_path: Path, files: int = 30) -> Path:
    ws = tmp_path / "ws"
    (ws / "pkg").mkdir(parents=True)
    for i in range(files):
        (ws / "pkg" / f"mod{i}.py").write_text(f"def fn{i}(a: int) -> int:\n    return a\n")
    return ws


def code_of(agent: object) -> CodeIntelligence:
    code = agent.host.code_index()  # type: ignore[attr-defined]
    assert isinstance(code, CodeIntelligence)
    return code


async def test_an_edit_re_parses_only_that_file_and_finds_the_new_symbol(tmp_path: Path) -> None:
    workspace(tmp_path)
    new = "def fn7(a: int) -> int:\n    return helper(a)\n\n\ndef helper(b: str) -> str:"
    provider = FunctionProvider(
        scripted(
            {"tool_calls": [("code_symbol", {"name": "fn7"})]},
            {
                "tool_calls": [
                    (
                        "edit",
                        {
                            "path": "pkg/mod7.py",
                            "old_string": "def fn7(a: int) -> int:",
                            "new_string": new,
                        },
                    )
                ]
            },
            {"tool_calls": [("code_symbol", {"name": "helper"})]},
        )
    )
    agent = await make_agent(tmp_path, provider, extensions=())
    seen: list[Event] = []
    agent.events.subscribe(seen.append)
    code = code_of(agent)
    try:
        await agent.run("rename things")
    finally:
        await agent.close()
    [(_, before), (_, edit), (_, after)] = results(agent)
    assert "pkg/mod7.py:1: def fn7(a: int) -> int (function)" in before.text
    assert not edit.is_error
    assert "pkg/mod7.py:5: def helper(b: str) -> str (function)" in after.text
    assert code.index.stats.parsed == 31  # 30 at the first question, then just the edited file
    [mutated] = [e for e in seen if isinstance(e, FileMutatedEvent)]
    assert mutated.paths == [str(tmp_path / "ws" / "pkg" / "mod7.py")]
    assert mutated.since is None
    assert mutated.tool == "edit"
    order = [e.type for e in seen if e.type in ("file_mutated", "tool_result")]
    assert order == ["tool_result", "file_mutated", "tool_result", "tool_result"]
    assert "pkg/mod7.py" in code.focus  # an edited file leads the repo map


async def test_a_shell_command_s_changes_are_found_by_re_stat(tmp_path: Path) -> None:
    workspace(tmp_path, files=3)
    provider = FunctionProvider(
        scripted(
            {"tool_calls": [("code_symbol", {"name": "fn1"})]},
            {
                "tool_calls": [
                    ("bash", {"command": "printf 'def added():\\n    pass\\n' >> pkg/mod1.py"})
                ]
            },
        )
    )
    agent = await make_agent(tmp_path, provider)
    seen: list[Event] = []
    agent.events.subscribe(seen.append)
    code = code_of(agent)
    try:
        await agent.run("append")
        await agent.host.drain()  # the re-stat runs in a thread after the event
    finally:
        await agent.close()
    [(_, _), (_, bash)] = results(agent)
    assert not bash.is_error, bash.text
    [mutated] = [e for e in seen if isinstance(e, FileMutatedEvent)]
    assert mutated.paths == []
    assert mutated.since is not None
    assert code.index.stats.parsed == 4  # 3 at the first question, then the appended file
    indexed = code.index.files["pkg/mod1.py"].symbols.definitions  # (outline would re-stat)
    assert [d.name for d in indexed] == ["fn1", "added"]


def test_the_index_persists_per_workspace_and_reparses_nothing_unchanged(tmp_path: Path) -> None:
    ws = workspace(tmp_path, files=5)
    first = CodeIndex(ws, tmp_path / "home")
    assert first.refresh() == 5
    again = CodeIndex(ws, tmp_path / "home")
    assert again.refresh() == 0
    assert [s.name for s in again.outline("pkg/mod3.py")] == ["fn3"]
    (ws / "pkg" / "mod3.py").write_text("class Renamed:\n    pass\n")
    (ws / "pkg" / "mod4.py").unlink()
    third = CodeIndex(ws, tmp_path / "home")
    assert third.refresh() == 1
    assert sorted(third.files) == [f"pkg/mod{i}.py" for i in range(4)]
    assert third.symbol("Renamed")[0].path == "pkg/mod3.py"
    other = CodeIndex(tmp_path, tmp_path / "home")  # another workspace: its own file
    assert other.store_path != first.store_path


def test_touching_a_file_without_changing_it_does_not_re_parse(tmp_path: Path) -> None:
    ws = workspace(tmp_path, files=2)
    index = CodeIndex(ws)
    index.refresh()
    path = ws / "pkg" / "mod0.py"
    path.write_text(path.read_text())  # new mtime, same content hash
    assert index.update([path]) == 0
    assert index.refresh() == 0


def test_gitignored_hidden_and_unknown_files_are_left_out(tmp_path: Path) -> None:
    ws = workspace(tmp_path, files=1)
    (ws / ".gitignore").write_text("build/\n*.gen.py\n")
    (ws / "build").mkdir()
    (ws / "build" / "out.py").write_text("def built(): pass\n")
    (ws / "pkg" / "x.gen.py").write_text("def generated(): pass\n")
    (ws / ".venv").mkdir()
    (ws / ".venv" / "lib.py").write_text("def hidden(): pass\n")
    (ws / "notes.txt").write_text("def text(): pass\n")
    index = CodeIndex(ws)
    index.refresh()
    assert sorted(index.files) == ["pkg/mod0.py"]
    assert index.update([ws / "build" / "out.py", ws / "pkg" / "x.gen.py"]) == 0
    assert index.symbol("built") == []
    assert index.outline("build/out.py") == []


def test_the_index_is_bounded_with_a_diagnostic(tmp_path: Path) -> None:
    ws = workspace(tmp_path, files=6)
    (ws / "big.py").write_text("x = 1\n" * 400)
    index = CodeIndex(ws, max_files=4, max_file_bytes=1000)
    index.refresh()
    assert len(index.files) == 4
    assert index.stats.diagnostics == [
        "stopped at 4 files (the index's file cap)",
        "skipped 1 file over 1000 bytes",
    ]
