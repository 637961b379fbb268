"""The tools and commands on a small multi-language workspace: outlines as trees, symbols with
definitions then references, the repo map's ranking, focus and budget, and clear errors."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from shard_core.capabilities.code_index import CodeIndexCapability, repo_map
from shard_core.capabilities.code_index.tools import (
    CodeOutlineTool,
    CodeSymbolTool,
    RepoMapTool,
)
from shard_core.contracts import ToolContext
from shard_core.engine.extension_host import Command, ExtensionHost
from shard_core.types.render import TreeDescriptor

FILES = {
    "app/core.py": (
        "class Engine:\n"
        "    def run(self, steps: int) -> None:\n"
        "        helper(steps)\n"
        "\n"
        "    def stop(self) -> bool:\n"
        "        return True\n"
        "\n"
        "\n"
        "def helper(n: int) -> int:\n"
        "    return n\n"
    ),
    "app/cli.py": "from app.core import Engine\n\n\ndef main() -> None:\n    Engine().run(1)\n",
    "app/extra.py": "def lonely() -> None:\n    pass\n",
    "app/jobs.py": "from app.core import helper\n\n\ndef nightly() -> int:\n    return helper(3)\n",
    "web/app.ts": "import { render, Props } from './ui'\nconst p: Props = { n: 1 }\nexport const out = render(p)\n",  # noqa: E501
    "web/ui.ts": "export interface Props { n: number }\nexport function render(p: Props): string {\n  return String(p.n)\n}\n",  # noqa: E501
    "README.md": "# Demo\n\n## Usage\n",
}


@pytest.fixture
def capability(tmp_path: Path) -> CodeIndexCapability:
    ws = tmp_path / "ws"
    for rel, text in FILES.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text)
    return CodeIndexCapability(ws, home=tmp_path / "home", server=None)


def ctx(capability: CodeIndexCapability) -> ToolContext:
    root = capability.index.root
    return ToolContext(cwd=root, roots=[root], agent_id="a", session_id="s", call_id="c")


async def test_code_outline_is_a_nested_tree(capability: CodeIndexCapability) -> None:
    result = await CodeOutlineTool(capability.code).execute(
        {"path": "app/core.py"}, ctx(capability)
    )
    assert not result.is_error
    assert result.text.splitlines() == [
        "app/core.py (4 definitions)",
        "1: class Engine",
        "  2: def run(self, steps: int) -> None",
        "  5: def stop(self) -> bool",
        "9: def helper(n: int) -> int",
    ]
    [tree] = result.render
    assert isinstance(tree, TreeDescriptor)
    engine, helper = tree.root.children
    assert (engine.label, engine.is_dir) == ("1: class Engine", True)
    assert [c.label for c in engine.children] == [
        "2: def run(self, steps: int) -> None",
        "5: def stop(self) -> bool",
    ]
    assert (helper.label, helper.children) == ("9: def helper(n: int) -> int", [])


async def test_code_outline_reads_typescript_and_markdown(capability: CodeIndexCapability) -> None:
    tool = CodeOutlineTool(capability.code)
    ts = await tool.execute({"path": "web/ui.ts"}, ctx(capability))
    assert ts.text.splitlines()[1:] == [
        "1: interface Props",
        "2: function render(p: Props): string",
    ]
    md = await tool.execute({"path": "README.md"}, ctx(capability))
    assert md.text.splitlines()[1:] == ["1: Demo", "3: Usage"]


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("missing.py", "missing.py does not exist"),
        ("app", "app is a directory; use ls"),
        ("../outside.py", "path escapes the workspace"),
        ("notes.bin", "notes.bin: no grammar for this kind of file"),
    ],
)
async def test_code_outline_errors(
    capability: CodeIndexCapability, path: str, message: str
) -> None:
    (capability.index.root / "notes.bin").write_bytes(b"\0")
    result = await CodeOutlineTool(capability.code).execute({"path": path}, ctx(capability))
    assert result.is_error
    assert result.text.startswith(message)


async def test_code_symbol_lists_definitions_then_references(
    capability: CodeIndexCapability,
) -> None:
    tool = CodeSymbolTool(capability.code)
    result = await tool.execute({"name": "Engine"}, ctx(capability))
    assert result.text.splitlines() == [
        "Engine: 1 definition, referenced in 1 file",
        "  app/core.py:1: class Engine (class)",
        "references:",
        "  app/cli.py: 1 reference (lines 5)",
    ]
    methods = await tool.execute({"name": "run", "kind": "class"}, ctx(capability))
    assert methods.text.startswith("run: 0 definitions, referenced in 1 file")
    none = await tool.execute({"name": "nothing_here"}, ctx(capability))
    assert none.text == "no definition of or reference to 'nothing_here' in the index"
    bad = await tool.execute({"name": "x", "kind": "variable"}, ctx(capability))
    assert bad.is_error
    assert "kind" in bad.text


async def test_the_repo_map_ranks_what_is_used_and_leans_to_the_focus(
    capability: CodeIndexCapability,
) -> None:
    tool = RepoMapTool(capability.code)
    plain = await tool.execute({}, ctx(capability))
    assert plain.text.splitlines() == [
        "app/core.py:",
        "     1: class Engine",
        "     2: def run(self, steps: int) -> None",
        "     9: def helper(n: int) -> int",
        "web/ui.ts:",
        "     1: interface Props",
        "     2: function render(p: Props): string",
    ]
    assert "lonely" not in plain.text
    assert "nightly" not in plain.text
    [tree] = plain.render
    assert isinstance(tree, TreeDescriptor)
    assert [n.label for n in tree.root.children] == ["app/core.py", "web/ui.ts"]
    focused = await tool.execute({"focus": "web/app.ts"}, ctx(capability))
    assert focused.text.splitlines()[:3] == [
        "web/ui.ts:",
        "     1: interface Props",
        "     2: function render(p: Props): string",
    ]
    jobs = capability.code.ranked(["app/jobs.py"])
    assert (jobs[0].path, jobs[0].signature) == ("app/core.py", "def helper(n: int) -> int")
    capability.code.notice(["web/app.ts"])  # a file the session mentioned leads by itself
    noticed = await tool.execute({}, ctx(capability))
    assert noticed.text == focused.text
    bad = await tool.execute({"budget": 10}, ctx(capability))
    assert bad.is_error
    assert "budget" in bad.text


def test_the_repo_map_fits_its_budget(capability: CodeIndexCapability) -> None:
    capability.index.refresh()
    entries = capability.code.ranked()
    for budget in (5, 12, 20, 40):
        chosen = repo_map.fit(entries, budget)
        assert len(repo_map.render(chosen)) <= budget * repo_map.CHARS_PER_TOKEN
    assert repo_map.fit(entries, 5) == {}
    assert sum(map(len, repo_map.fit(entries, 20).values())) < len(entries)


async def answer(command: Command, args: list[str]) -> str:
    result = command.handler(args)
    return await result if inspect.isawaitable(result) else result


async def test_index_and_map_commands(capability: CodeIndexCapability) -> None:
    host = ExtensionHost()
    assert await host.install("shard.code_index", capability)
    index = host.command("index")
    repo = host.command("map")
    assert index is not None
    assert repo is not None
    status = await answer(index, [])
    assert "| files | 7 |" in status
    assert "| languages | python 4, typescript 2, markdown 1 |" in status
    assert "| language server | no Python language server found" in status
    (capability.index.root / "app" / "extra.py").write_text("def lonely2() -> None:\n    pass\n")
    refreshed = await answer(index, ["refresh"])
    assert refreshed.startswith("refreshed: 1 file re-parsed")
    shown = await answer(repo, ["app/cli.py"])
    assert shown.startswith("```\napp/core.py:\n     1: class Engine")
    await host.shutdown()


def test_signatures_are_the_public_api_not_locals(capability: CodeIndexCapability) -> None:
    (capability.index.root / "app" / "api.py").write_text(
        "class C:\n    def __init__(self) -> None:\n        def local() -> None: ...\n"
        "    def _hidden(self) -> None: ...\n    def shown(self) -> int: ...\n"
        "def _private() -> None: ...\n"
    )
    assert capability.code.signatures("app/api.py") == [
        "class C",
        "def __init__(self) -> None",
        "def shown(self) -> int",
    ]
