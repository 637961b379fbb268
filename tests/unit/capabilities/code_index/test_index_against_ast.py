"""The index agrees with Python's own parser over a real package: every function and class
definition `ast` finds in `rich` (installed in the environment, ~80 modules) is in the outline
at the same line, and `symbol(name)` finds each one."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest
import rich

from shard_core.capabilities.code_index import CodeIndex

# one worker runs this module: its module-scoped fixture is built once (pytest-xdist)
pytestmark = pytest.mark.xdist_group("index_against_ast")

PACKAGE = Path(rich.__file__).parent
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def ast_definitions(path: Path) -> Counter[tuple[str, int, str]]:
    tree = ast.parse(path.read_bytes())
    return Counter(
        (node.name, node.lineno, "class" if isinstance(node, ast.ClassDef) else "function")
        for node in ast.walk(tree)
        if isinstance(node, DEFINITIONS)
    )


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> CodeIndex:
    built = CodeIndex(PACKAGE, tmp_path_factory.mktemp("home"))
    built.refresh()
    return built


def test_the_index_covers_every_module(index: CodeIndex) -> None:
    modules = sorted(p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py"))
    assert len(modules) > 50
    assert sorted(r for r in index.files if r.endswith(".py")) == modules


def test_outlines_match_ast_for_every_function_and_class(index: CodeIndex) -> None:
    compared = 0
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        outline = Counter(
            (s.name, s.line, "class" if s.kind == "class" else "function")
            for s in index.outline(rel)
        )
        expected = ast_definitions(path)
        assert outline == expected, rel
        compared += sum(expected.values())
    assert compared > 1000


def test_symbol_finds_every_definition_where_ast_puts_it(index: CodeIndex) -> None:
    by_name: dict[str, set[tuple[str, int]]] = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE).as_posix()
        for name, line, _ in ast_definitions(path):
            by_name.setdefault(name, set()).add((rel, line))
    for name, places in sorted(by_name.items()):
        found = {(s.path, s.line) for s in index.symbol(name) if s.kind != "reference"}
        assert found == places, name


def test_signatures_are_the_definition_heads(index: CodeIndex) -> None:
    for path in sorted(PACKAGE.rglob("*.py"))[:20]:
        rel = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_bytes())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                [sig] = [s.signature for s in index.outline(rel) if s.line == node.lineno]
                keyword = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
                assert sig.startswith(f"{keyword} {node.name}("), (rel, sig)
                assert ("->" in sig) == (node.returns is not None) or sig.endswith("…"), sig
                assert not sig.endswith(":"), sig
