"""LoadSkillTool: `load_skill{name}` — a skill's full body, its directory and its resources.

The name is looked up only in the live registry (a name, never a path), and SKILL.md is read
again on every call so the model sees the file as it is now. A rendered result over 128 KiB is
an explicit error, never a truncated body, and records no activation; a successful load asks
the turn loop for an activation checkpoint (see activation.py).
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from shard_core.capabilities.skills.activation import activation_intent
from shard_core.capabilities.skills.discovery import read_skill
from shard_core.capabilities.skills.frontmatter import valid_name
from shard_core.capabilities.skills.registry import SkillRecord, SkillRegistry
from shard_core.capabilities.skills.resources import list_resources
from shard_core.contracts import ToolContext
from shard_core.types import JsonObject, ToolResult
from shard_core.types.render import (
    KvDescriptor,
    KvPair,
    RenderDescriptor,
    StatusDescriptor,
    TextDescriptor,
)

MAX_RESULT_BYTES = 128 * 1024


def render_skill(record: SkillRecord, body: str, resources: list[str], more: int) -> str:
    """The `<skill>` envelope, shared by the tool result and the rehydrated prompt section."""
    directory = escape(str(record.directory))
    parts = [f'<skill name="{record.name}" directory="{directory}">', body]
    if resources:
        listed = "\n".join(resources)
        extra = f"\n({more} more not listed)" if more else ""
        parts.append(f"<resources>\n{listed}{extra}\n</resources>")
    parts.append("</skill>")
    return "\n".join(parts)


class LoadSkillTool:
    name = "load_skill"
    description = (
        "Load a skill from <available_skills> by name: returns its full instructions, the "
        "directory its relative paths start from, and the files under its scripts/, "
        "references/ and assets/ folders."
    )
    input_schema: JsonObject = {
        "type": "object",
        "properties": {"name": {"type": "string", "description": "a name from <available_skills>"}},
        "required": ["name"],
        "additionalProperties": False,
    }
    read_only = True

    def __init__(self, registry: Callable[[], SkillRegistry]) -> None:
        self._registry = registry

    @property
    def registry(self) -> SkillRegistry:
        """The live registry (for `/skills` and other inspection)."""
        return self._registry()

    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        name = input.get("name")
        registry = self._registry()
        if not valid_name(name):
            return ToolResult.error(
                f"{name!r} is not a skill name: names are kebab-case words, never paths; "
                f"available: {', '.join(registry.names())}"
            )
        record = registry.get(name)
        if record is None:
            return ToolResult.error(
                f"no skill named {name!r}; available: {', '.join(registry.names())}"
            )
        return load(record)


def load(record: SkillRecord) -> ToolResult:
    parsed = read_skill(record.path)
    if isinstance(parsed, str):
        return ToolResult.error(f"skill {record.name!r} ({record.path}) cannot be loaded: {parsed}")
    if parsed.name != record.name:
        return ToolResult.error(
            f"skill {record.name!r} ({record.path}) now declares the name {parsed.name!r}; "
            "it was not loaded (restart the agent to rediscover skills)"
        )
    resources, more = list_resources(record.directory)
    text = render_skill(record, parsed.body, resources, more)
    size = len(text.encode("utf-8"))
    if size > MAX_RESULT_BYTES:
        return ToolResult.error(
            f"skill {record.name!r} is {size} bytes rendered; the limit is {MAX_RESULT_BYTES} "
            "bytes, so it was not loaded (a skill body is never truncated)",
            skill=record.name,
            bytes=size,
        )
    return ToolResult.ok(
        text,
        *skill_card(record, parsed.body, len(resources) + more, size),
        skill={"name": record.name, "path": str(record.path), "directory": str(record.directory)},
        checkpoint=activation_intent(record.name, str(record.path)),
    )


def skill_card(record: SkillRecord, body: str, resources: int, size: int) -> list[RenderDescriptor]:
    """What people see of an activation (the terminal, the widget's tool card): which skill,
    from where, and its instructions; the model gets the `<skill>` envelope."""
    return [
        StatusDescriptor(label=f"skill {record.name} loaded", tone="success"),
        KvDescriptor(
            pairs=[
                KvPair(k="description", v=record.description),
                KvPair(k="directory", v=str(record.directory)),
                KvPair(k="layer", v=record.layer),
                KvPair(k="resources", v=str(resources)),
                KvPair(k="size", v=f"{size} bytes"),
            ]
        ),
        TextDescriptor(text=body, format="markdown"),
    ]
