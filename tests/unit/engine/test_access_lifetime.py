"""A tool shape an ExtensionHost declares lasts as long as that host: rules for the name parse
while it runs and not after it shut down, and a built-in it shadowed has its own shape back.
(The registry is process-wide: a declaration that outlived its host leaked into whatever ran
next in the process, e.g. the next test in the same pytest-xdist worker.)"""

from __future__ import annotations

from typing import Any

import pytest

from shard_core.contracts import CommandAccess, ExtensionApi, PathAccess, ToolContext
from shard_core.engine.access import access_for, declare_tool, declared
from shard_core.engine.extension_host import ExtensionHost
from shard_core.engine.permissions import parse_rule
from shard_core.types import ToolResult
from shard_core.types.errors import ConfigError


class _Tool:
    description = "A third party's tool."
    input_schema: dict[str, Any] = {"type": "object", "properties": {}}
    read_only = True

    def __init__(self, name: str, access: object) -> None:
        self.name = name
        self.access = access

    async def execute(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult.ok("")


async def _host(*tools: _Tool) -> ExtensionHost:
    def register(api: ExtensionApi) -> None:
        for tool in tools:
            api.register_tool(tool)

    host = ExtensionHost()
    assert await host.install("third.party", register)
    return host


async def test_a_hosts_shape_is_gone_when_it_shuts_down() -> None:
    host = await _host(_Tool("glance", PathAccess(arg="file")))

    assert parse_rule("Glance(src/**)").path is not None
    assert "glance" in declared()

    await host.shutdown()

    assert access_for("glance") is None
    assert "glance" not in declared()
    with pytest.raises(ConfigError, match=r"Glance\(…\) takes no specifier"):
        parse_rule("Glance(src/**)")


async def test_a_shadowed_builtin_gets_its_own_shape_back() -> None:
    builtin = access_for("read")
    host = await _host(_Tool("read", CommandAccess(arg="command")))

    assert access_for("read") == CommandAccess(arg="command")

    await host.shutdown()

    assert access_for("read") == builtin
    assert isinstance(builtin, PathAccess)


async def test_two_hosts_withdraw_only_their_own() -> None:
    first = await _host(_Tool("glance", PathAccess(arg="file")))
    second = await _host(_Tool("glance", PathAccess(arg="target")))

    await first.shutdown()
    assert access_for("glance") == PathAccess(arg="target")

    await second.shutdown()
    assert access_for("glance") is None


def test_a_process_wide_declaration_stays() -> None:
    withdraw = declare_tool(_Tool("glimpse", PathAccess(arg="file")))
    try:
        assert access_for("GLIMPSE") == PathAccess(arg="file")
    finally:
        withdraw()
    assert access_for("glimpse") is None


def test_the_seeded_shapes_are_the_builtin_classes_own() -> None:
    """The table access seeds from (no tool imported) names every built-in tool class, in the
    model's order, with the shape the class carries; a built-in added without its entry fails."""
    from shard_core.tools import builtin_tool_types
    from shard_core.tools.shapes import BUILTIN_ACCESS

    classes = builtin_tool_types()
    assert [(cls.name, cls.access) for cls in classes] == list(BUILTIN_ACCESS.items())  # pyright: ignore[reportAttributeAccessIssue]
    assert {name: declared()[name] for name in BUILTIN_ACCESS} == BUILTIN_ACCESS
