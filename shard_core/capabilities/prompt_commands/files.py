"""Prompt command files: where they are looked for, their names (sub-folders as namespaces)
and their front matter (`description`, `argument-hint`, `allowed-tools`, `model`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from shard_core.engine.frontmatter import split_front_matter

PROJECT_FOLDERS = (".shard/commands", ".claude/commands", ".agents/commands")
KEYS = {"description", "argument-hint", "allowed-tools", "model"}
PART = re.compile(r"[a-z0-9][a-z0-9_-]*")


@dataclass(frozen=True)
class PromptFile:
    name: str
    """the command name without `/`: `git:commit` for `git/commit.md`"""
    path: Path
    body: str
    description: str = ""
    argument_hint: str = ""
    allowed_tools: tuple[str, ...] = ()
    model: str | None = None


@dataclass
class Loaded:
    files: dict[str, PromptFile] = field(default_factory=dict[str, PromptFile])
    diagnostics: list[str] = field(default_factory=list[str])


def command_roots(
    cwd: Path, *, config: Path, home: Path, trusted: bool
) -> tuple[list[Path], list[Path]]:
    """(folders read, project folders left out because the project is not trusted). Later
    folders win a name: the user's config, SHARD_HOME, then the project's."""
    user = [config / "commands", home / "commands"]
    project = [cwd / folder for folder in PROJECT_FOLDERS]
    if trusted:
        return user + project, []
    return user, [p for p in project if p.is_dir()]


def load_prompt_files(roots: list[Path]) -> Loaded:
    loaded = Loaded()
    for root in roots:
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*.md")):
            found = _load(root, path)
            if isinstance(found, str):
                loaded.diagnostics.append(f"prompt command {path}: {found}; it was left out")
            else:
                loaded.files[found.name] = found
    return loaded


def command_name(root: Path, path: Path) -> str | None:
    parts = [*path.relative_to(root).parent.parts, path.stem]
    parts = [p.lower() for p in parts]
    if not all(PART.fullmatch(p) for p in parts):
        return None
    name = ":".join(parts)
    return name if len(name) <= 64 else None


def _load(root: Path, path: Path) -> PromptFile | str:
    name = command_name(root, path)
    if name is None:
        return "its name is not lowercase letters, digits, `-` and `_` (at most 64 in all)"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return f"could not be read: {exc}"
    if not text.lstrip("\ufeff").startswith("---"):
        return PromptFile(name=name, path=path, body=text.strip("\n"))
    split = split_front_matter(text, str(path))
    if isinstance(split, str):
        return split
    meta, body = split
    return _checked(name, path, meta, body)


def _checked(name: str, path: Path, meta: dict[str, object], body: str) -> PromptFile | str:
    unknown = sorted(set(meta) - KEYS)
    if unknown:
        return f"unknown front-matter keys {unknown} (known: {sorted(KEYS)})"
    for key in ("description", "argument-hint", "model"):
        if meta.get(key) is not None and not isinstance(meta[key], str):
            return f"`{key}` must be text"
    tools = meta.get("allowed-tools")
    if isinstance(tools, str):
        allowed = tuple(t.strip() for t in tools.split(",") if t.strip())
    elif isinstance(tools, list) and all(isinstance(t, str) for t in tools):  # pyright: ignore[reportUnknownVariableType]
        allowed = tuple(str(t) for t in tools)  # pyright: ignore[reportUnknownArgumentType,reportUnknownVariableType]
    elif tools is None:
        allowed = ()
    else:
        return "`allowed-tools` must be text (comma separated) or a list of rules"
    return PromptFile(
        name=name,
        path=path,
        body=body,
        description=str(meta.get("description") or ""),
        argument_hint=str(meta.get("argument-hint") or ""),
        allowed_tools=allowed,
        model=str(meta["model"]) if meta.get("model") else None,
    )
