"""Layer rules on the source: no upward import, no Jupyter in shard_core, no huge module."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
RANKS = {
    "types": 0,
    "contracts": 1,
    "protocol": 1,
    "engine": 2,
    "providers": 2,
    "tools": 2,
    "capabilities": 3,
    "sdk": 4,
}
JUPYTER = {
    "ipykernel", "jupyter_client", "jupyter_server", "jupyter_core", "IPython", "traitlets",
    "ipywidgets", "anywidget", "nbclient", "nbformat", "comm", "shard_kernel", "shard_widgets",
}  # fmt: skip
MAX_LINES = 600


def _rank(module: str) -> int | None:
    parts = module.split(".")
    if parts[0] != "shard_core" or len(parts) < 2:
        return None
    return RANKS.get(parts[1].removesuffix(".py"))


def _imports(tree: ast.AST) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


def find_violations(package: Path) -> list[str]:
    """Every rule broken under `package` (a shard_core folder), as readable lines."""
    problems: list[str] = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package.parent)
        module = ".".join(rel.with_suffix("").parts)
        text = path.read_text(encoding="utf-8")
        if (n := text.count("\n")) > MAX_LINES:
            problems.append(f"{rel}: {n} lines (limit {MAX_LINES})")
        own = _rank(module)
        for lineno, target in _imports(ast.parse(text)):
            if target.split(".")[0] in JUPYTER:
                problems.append(f"{rel}:{lineno}: shard_core imports Jupyter module {target}")
            theirs = _rank(target)
            if own is not None and theirs is not None and theirs > own:
                problems.append(f"{rel}:{lineno}: upward import of {target}")
    return problems


def test_shard_core_follows_the_layer_rules() -> None:
    assert find_violations(ROOT / "shard_core") == []


def test_an_upward_import_is_caught(tmp_path: Path) -> None:
    pkg = tmp_path / "shard_core"
    (pkg / "types").mkdir(parents=True)
    (pkg / "engine").mkdir()
    (pkg / "types" / "bad.py").write_text("from shard_core.engine.loop import run\n")
    (pkg / "engine" / "fine.py").write_text("from shard_core.types import Usage\n")
    (pkg / "engine" / "jup.py").write_text("import ipykernel.kernelbase\n")
    (pkg / "engine" / "big.py").write_text("x = 1\n" * (MAX_LINES + 1))
    assert find_violations(pkg) == [
        "shard_core/engine/big.py: 601 lines (limit 600)",
        "shard_core/engine/jup.py:1: shard_core imports Jupyter module ipykernel.kernelbase",
        "shard_core/types/bad.py:1: upward import of shard_core.engine.loop",
    ]
