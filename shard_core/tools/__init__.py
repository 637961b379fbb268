"""The built-in tools: read, write, edit, bash, grep, find and ls, confined to the workspace.

Each tool's module is imported on first use (PEP 562): a module under shard_core.tools (e.g.
`atomic`, which the state folder uses) does not load every tool with it.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from shard_core.lazy_exports import lazy_getattr

if TYPE_CHECKING:
    from shard_core.contracts import Tool
    from shard_core.tools.bash import BashTool
    from shard_core.tools.edit import EditTool
    from shard_core.tools.find import FindTool
    from shard_core.tools.grep import GrepTool
    from shard_core.tools.ls import LsTool
    from shard_core.tools.read import ReadTool
    from shard_core.tools.sandbox import SandboxPolicy
    from shard_core.tools.tasks import BackgroundTasks
    from shard_core.tools.write import WriteTool

_WHERE = {
    "ReadTool": "read",
    "WriteTool": "write",
    "EditTool": "edit",
    "BashTool": "bash",
    "GrepTool": "grep",
    "FindTool": "find",
    "LsTool": "ls",
}
"""Each tool class → its module, in the order the model sees them."""


__getattr__ = lazy_getattr(__name__, _WHERE, globals())


def builtin_tool_types() -> list[type]:
    """The built-in tools' classes, in the order the model sees them (their `name` and
    `access` are class attributes; the shapes alone, without a tool imported, are
    `shard_core.tools.shapes.BUILTIN_ACCESS`)."""
    return [__getattr__(name) for name in _WHERE]


def builtin_tools(
    *,
    env_passthrough: Collection[str] = (),
    sandbox: SandboxPolicy | None = None,
    tasks: BackgroundTasks | None = None,
) -> list[Tool]:
    """A fresh instance of every built-in tool, in the order the model sees them.

    `env_passthrough`: secret variables the bash tool's commands may see anyway (config
    `tools.env_passthrough`). `sandbox`: how bash commands are confined (config `sandbox`).
    `tasks`: where `bash{background: true}` starts its tasks (none: refused)."""
    from shard_core.tools.bash import BashTool
    from shard_core.tools.edit import EditTool
    from shard_core.tools.find import FindTool
    from shard_core.tools.grep import GrepTool
    from shard_core.tools.ls import LsTool
    from shard_core.tools.read import ReadTool
    from shard_core.tools.sandbox import Sandbox
    from shard_core.tools.write import WriteTool

    bash = BashTool(env_passthrough=env_passthrough, sandbox=Sandbox(sandbox), tasks=tasks)
    return [ReadTool(), WriteTool(), EditTool(), bash, GrepTool(), FindTool(), LsTool()]


__all__ = [
    "BashTool",
    "EditTool",
    "FindTool",
    "GrepTool",
    "LsTool",
    "ReadTool",
    "WriteTool",
    "builtin_tools",
]
