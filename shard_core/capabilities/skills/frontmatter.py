"""SKILL.md parsing: YAML front-matter between `---` fences, then the body, then validation."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, TypeGuard, cast

import yaml

NAME_PATTERN = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_NAME = 64
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


@dataclass(frozen=True)
class ParsedSkill:
    name: str
    description: str
    body: str
    metadata: dict[str, Any]


def valid_name(name: object) -> TypeGuard[str]:
    """Kebab-case, at most 64 characters: never a path, so never a traversal."""
    return (
        isinstance(name, str) and len(name) <= MAX_NAME and NAME_PATTERN.fullmatch(name) is not None
    )


def parse_skill(text: str) -> ParsedSkill | str:
    """The parsed skill, or a sentence saying why the file is not one."""
    text = text.removeprefix("\ufeff")
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return "no front-matter: SKILL.md must start with a `---` line"
    end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), None)
    if end is None:
        return "the front-matter has no closing `---` line"
    try:
        loaded: object = yaml.safe_load("".join(lines[1:end]))
    except yaml.YAMLError as exc:
        return f"the front-matter is not valid YAML: {exc}"
    if not isinstance(loaded, dict):
        return "the front-matter is not a mapping of keys to values"
    front = cast(dict[str, Any], loaded)
    name, description = front.get("name"), front.get("description")
    if not valid_name(name):
        return f"name {name!r} is not kebab-case (a-z, 0-9, single hyphens, at most {MAX_NAME})"
    if not isinstance(description, str) or not description.strip():
        return "description is missing or empty"
    if len(description) > MAX_DESCRIPTION:
        return f"description is {len(description)} characters; the limit is {MAX_DESCRIPTION}"
    metadata = {k: front[k] for k in METADATA_KEYS if k in front}
    body = "".join(lines[end + 1 :]).strip("\n")
    return ParsedSkill(name, " ".join(description.split()), body, metadata)
