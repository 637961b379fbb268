"""SKILL.md parsing: YAML front-matter between `---` fences, then the body, then validation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from shard_core.engine.frontmatter import MAX_NAME, split_front_matter, valid_name

MAX_DESCRIPTION = 1024
METADATA_KEYS = (
    "license",
    "compatibility",
    "version",
    "author",
    "keywords",
    "allowed-tools",
    "metadata",
)
"""standard keys kept for inspection; none of them changes what the harness does"""

__all__ = ["MAX_DESCRIPTION", "METADATA_KEYS", "ParsedSkill", "parse_skill", "valid_name"]


@dataclass(frozen=True)
class ParsedSkill:
    name: str
    description: str
    body: str
    metadata: dict[str, Any]


def parse_skill(text: str) -> ParsedSkill | str:
    """The parsed skill, or a sentence saying why the file is not one."""
    split = split_front_matter(text, "SKILL.md")
    if isinstance(split, str):
        return split
    front, body = split
    name, description = front.get("name"), front.get("description")
    if not valid_name(name):
        return f"name {name!r} is not kebab-case (a-z, 0-9, single hyphens, at most {MAX_NAME})"
    if not isinstance(description, str) or not description.strip():
        return "description is missing or empty"
    if len(description) > MAX_DESCRIPTION:
        return f"description is {len(description)} characters; the limit is {MAX_DESCRIPTION}"
    metadata = {k: front[k] for k in METADATA_KEYS if k in front}
    return ParsedSkill(name, " ".join(description.split()), body, metadata)
