"""Agent Skills: SKILL.md discovery, the `<available_skills>` catalog and `load_skill`."""

from shard_core.capabilities.skills.catalog import catalog_section, catalog_text
from shard_core.capabilities.skills.discovery import default_roots, load_skills
from shard_core.capabilities.skills.extension import SkillsCapability
from shard_core.capabilities.skills.frontmatter import ParsedSkill, parse_skill
from shard_core.capabilities.skills.load_tool import MAX_RESULT_BYTES, LoadSkillTool
from shard_core.capabilities.skills.registry import (
    SkillDiagnostic,
    SkillRecord,
    SkillRegistry,
    SkillRoot,
)

__all__ = [
    "MAX_RESULT_BYTES",
    "LoadSkillTool",
    "ParsedSkill",
    "SkillDiagnostic",
    "SkillRecord",
    "SkillRegistry",
    "SkillRoot",
    "SkillsCapability",
    "catalog_section",
    "catalog_text",
    "default_roots",
    "load_skills",
    "parse_skill",
]
