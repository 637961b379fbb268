"""Markdown front-matter: a YAML mapping between `---` fences, then the body.

Shared by the typed loaders that read `*.md` resources (Agent Skills, agent definitions): each
validates the mapping its own way; this module only splits and parses.
"""

from __future__ import annotations

import re
from typing import Any, TypeGuard, cast

NAME_PATTERN = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_NAME = 64


def valid_name(name: object) -> TypeGuard[str]:
    """Kebab-case, at most 64 characters: never a path, so never a traversal."""
    return (
        isinstance(name, str) and len(name) <= MAX_NAME and NAME_PATTERN.fullmatch(name) is not None
    )


def split_front_matter(text: str, file: str = "the file") -> tuple[dict[str, Any], str] | str:
    """(front-matter mapping, body without the fences), or a sentence saying why not."""
    text = text.removeprefix("\ufeff")
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return f"no front-matter: {file} must start with a `---` line"
    end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), None)
    if end is None:
        return "the front-matter has no closing `---` line"
    import yaml  # with the first front matter read, not with every loader's import

    try:
        loaded: object = yaml.safe_load("".join(lines[1:end]))
    except yaml.YAMLError as exc:
        return f"the front-matter is not valid YAML: {exc}"
    if not isinstance(loaded, dict):
        return "the front-matter is not a mapping of keys to values"
    return cast(dict[str, Any], loaded), "".join(lines[end + 1 :]).strip("\n")
