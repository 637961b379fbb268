"""Tool shapes by name: what each tool declared as its `access` (contracts/access.py).

The gate judges a call by its Tool object's own declaration. What knows only a name — the rule
parser, suggestions, compaction, recall, `shard rules check` — looks it up here: the built-in
tools are known from the start (`shard_core.tools.shapes`, where each class takes its `access`
from, so no tool module is imported for it), and every tool an ExtensionHost
registers adds its declaration, bundled or third-party alike, until that host shuts down (the
disposer `declare_tool` returns withdraws it, and a name declared twice keeps the later shape
until then, the earlier one after). A name nobody declared has no shape: its rules take no
specifier and the gate judges its calls by name alone (fail closed).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from shard_core.contracts.access import PathAccess, ToolAccess, access_of

__all__ = [
    "access_for",
    "call_access",
    "declare_tool",
    "declare_tools",
    "declared",
    "path_tools",
]

_Entry = tuple[str, ToolAccess]
"""the name as declared, its shape"""

_declared: dict[str, list[_Entry]] = {}
"""canonical name (lowercase, MCP names as they are) → its declarations, the one in force last
(a seed first)"""
_seeded = False


def _nothing() -> None:
    return None


def _key(name: str) -> str:
    return name if name.startswith("mcp__") else name.lower()


def declare_tool(tool: object, *, seed: bool = False) -> Callable[[], None]:
    """Remember the shape `tool` (an instance or its class) declares, under its name; returns
    what withdraws this declaration (the ExtensionHost calls it when it shuts down). A tool
    that declares none changes nothing: its calls are judged by its own (missing) declaration,
    while rules written for the name before keep parsing."""
    name, access = getattr(tool, "name", None), access_of(tool)
    if not isinstance(name, str) or access is None:
        return _nothing
    key = _key(name)
    entries = _declared.setdefault(key, [])
    if seed:  # under whatever was declared before the first look-up
        entries.insert(0, (name, access))
        return _nothing
    entry = (name, access)
    entries.append(entry)

    def withdraw() -> None:
        found = _declared.get(key, [])
        for at in range(len(found) - 1, -1, -1):
            if found[at] is entry:
                del found[at]
                break
        if not found:
            _declared.pop(key, None)

    return withdraw


def declare_tools(tools: Iterable[object]) -> None:
    """Declare shapes for the life of the process (bundled tools, where no agent installs
    them: `shard rules check`, the gateway's checks)."""
    for tool in tools:
        declare_tool(tool)


def access_for(name: str) -> ToolAccess | None:
    """The shape declared for a tool name, if any."""
    if not _seeded:
        _seed()
    found = _declared.get(_key(name))
    return found[-1][1] if found else None


def call_access(name: str, tool: object | None) -> ToolAccess | None:
    """The shape a call is judged by: the tool's own declaration when it has an `access`
    attribute (None included: it declared itself opaque), else the one declared for its name
    (no Tool object, or a wrapper that does not forward `access`)."""
    if tool is not None and hasattr(tool, "access"):
        return access_of(tool)
    return access_for(name)


def declared() -> dict[str, ToolAccess]:
    """Every declared shape by tool name (as declared), in declaration order."""
    if not _seeded:
        _seed()
    return dict(entries[-1] for entries in _declared.values() if entries)


def path_tools(*, writes: bool) -> frozenset[str]:
    """The names of the path tools that change (`writes`) or only read the path they name."""
    return frozenset(
        name
        for name, access in declared().items()
        if isinstance(access, PathAccess) and access.writes is writes
    )


def _seed() -> None:
    global _seeded
    _seeded = True
    from shard_core.tools.shapes import BUILTIN_ACCESS  # the built-ins' shapes, no tool imported

    for name, access in BUILTIN_ACCESS.items():
        _declared.setdefault(_key(name), []).insert(0, (name, access))
