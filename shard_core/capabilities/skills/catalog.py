"""The `<available_skills>` catalog: name, description and location only, never a body."""

from __future__ import annotations

from html import escape

from shard_core.capabilities.skills.registry import SkillRegistry
from shard_core.types import SystemSection

INTRO = """Skills are folders of instructions for particular tasks. When a task matches a skill's
description, call `load_skill` with its name before you start, then follow what it says; paths in
a skill are relative to the directory `load_skill` returns."""


def catalog_text(registry: SkillRegistry) -> str:
    # Descriptions are the skill author's text: escaped, they cannot close the element.
    lines = [
        f"- {s.name}: {escape(s.description, quote=False)} ({escape(str(s.path), quote=False)})"
        for s in registry.live()
    ]
    return "\n".join([INTRO, "", "<available_skills>", *lines, "</available_skills>"])


def catalog_section(registry: SkillRegistry) -> SystemSection | None:
    """The stable prompt section, or None when no skill is live (then nothing mentions skills)."""
    if not registry.skills:
        return None
    return SystemSection(name="skills:catalog", text=catalog_text(registry), stable=True)
