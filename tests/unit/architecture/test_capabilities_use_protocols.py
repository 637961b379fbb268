"""Bundled capabilities reach the agent as third-party extensions do: through the ExtensionApi
and Protocols they declare for what they use, never by importing the engine's AgentSession."""

from __future__ import annotations

import ast
from pathlib import Path

CAPABILITIES = Path(__file__).parents[3] / "shard_core" / "capabilities"


def _imports_session(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module == "shard_core.engine.session":
            return True
        if isinstance(node, ast.Import) and any(
            a.name == "shard_core.engine.session" for a in node.names
        ):
            return True
    return False


def test_no_capability_imports_the_agent_session() -> None:
    modules = sorted(CAPABILITIES.rglob("*.py"))
    assert len(modules) > 20
    offenders = [str(p.relative_to(CAPABILITIES)) for p in modules if _imports_session(p)]
    assert offenders == []
