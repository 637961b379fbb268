"""The built-in tools' permission shapes by name, as plain data.

Each built-in tool class takes its `access` from here, and `shard_core.engine.access` seeds its
table from here: the rule parser, compaction and recall know the built-ins' shapes without
importing a tool (`shard session compact` loads none of them). Order: the model's.
"""

from __future__ import annotations

from shard_core.contracts.access import CommandAccess, PathAccess, ToolAccess

BUILTIN_ACCESS: dict[str, ToolAccess] = {
    "read": PathAccess(),
    "write": PathAccess(writes=True, rule="Edit"),
    "edit": PathAccess(writes=True),
    "bash": CommandAccess(),
    "grep": PathAccess(default="."),
    "find": PathAccess(default="."),
    "ls": PathAccess(default="."),
}
