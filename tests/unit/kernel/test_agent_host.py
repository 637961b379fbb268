"""The kernel's helpers use an AgentHost, not ShardKernel: comm commands, the kernel's slash
command and the widget host import nothing of `shard_kernel.kernel` (not at module level, not
behind TYPE_CHECKING, not inside a function), so the kernel and its helpers form no circle; and
ShardKernel has every member the helpers are typed against."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from shard_kernel.agent_host import AgentHost
from shard_kernel.kernel import ShardKernel

PACKAGE = Path(__file__).resolve().parents[3] / "shard_kernel"
HELPERS = ("comm_commands.py", "slash.py", "widget_host.py", "agent_host.py")


def _imported(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
    return found


def test_no_helper_imports_the_kernel() -> None:
    users = {name for name in HELPERS if "shard_kernel.kernel" in _imported(PACKAGE / name)}
    assert users == set()


def test_the_kernel_has_what_the_helpers_use() -> None:
    wanted = {
        name
        for name, _ in inspect.getmembers(AgentHost)
        if not name.startswith("_") and name not in dir(object)
    }
    wanted |= set(AgentHost.__annotations__)
    missing = {name for name in wanted if not hasattr(ShardKernel, name)}
    instance_attributes = {"clients", "pending", "pending_ui", "ui", "agent", "event_log"}
    assert missing <= instance_attributes  # assigned in __init__
    source = inspect.getsource(ShardKernel.__init__)
    assert all(f"self.{name}" in source for name in instance_attributes & wanted)
