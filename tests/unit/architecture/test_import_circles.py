"""Import circles between Shard's modules (shard_core, shard_kernel, shard_widgets), found on
the source: every import counts, at module level, behind `TYPE_CHECKING` or inside a function
(a circle a lazy import hides is still a design circle: neither module can be understood, or
moved, without the other)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = ("shard_core", "shard_kernel", "shard_widgets")
KNOWN: tuple[set[str], ...] = ()
"""Circles still to be broken: a found circle must lie inside one of them, so none grows and
no new one appears. Empty: none is left, and none may come back."""


def _modules(root: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    paths = (p for package in PACKAGES for p in sorted((root / package).rglob("*.py")))
    for path in paths:
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _targets(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules `name` imports: `from pkg import mod` names the module, else the package."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names if alias.name in modules}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                out |= {full} if full in modules else ({base} if base in modules else set())
    return out - {name}


def find_circles(root: Path) -> list[set[str]]:
    """Every strongly connected set of two or more modules of the PACKAGES under `root`."""
    modules = _modules(root)
    graph = {name: _targets(name, path, modules) for name, path in modules.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[set[str]] = []

    def visit(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = set[str]()
            while not component or node not in component:
                component.add(stack.pop())
            if len(component) > 1:
                circles.append(component)

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph)))
    try:
        for node in graph:
            if node not in index:
                visit(node)
    finally:
        sys.setrecursionlimit(limit)
    return circles


def test_no_new_import_circle_in_shard_core() -> None:
    grown = [c for c in find_circles(ROOT) if not any(c <= known for known in KNOWN)]
    assert grown == []


def test_the_providers_import_no_circle() -> None:
    """models.py looked the adapters up and the adapters it for their windows: gone."""
    touching = [c for c in find_circles(ROOT) if any(".providers" in m for m in c)]
    assert touching == []


def test_a_type_only_or_lazy_circle_is_found(tmp_path: Path) -> None:
    pkg = tmp_path / "shard_core" / "providers"
    pkg.mkdir(parents=True)
    (tmp_path / "shard_core" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("from shard_core.providers.models import x\n")
    (pkg / "models.py").write_text("def f():\n    from shard_core.providers import anthropic\n")
    (pkg / "anthropic.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from shard_core.providers.models import f\n"
    )
    (pkg / "leaf.py").write_text("from . import models\n")
    assert find_circles(tmp_path) == [
        {"shard_core.providers.models", "shard_core.providers.anthropic"}
    ]
