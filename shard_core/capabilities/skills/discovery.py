"""Skill discovery: walk injected roots in precedence order and merge by parsed name.

Roots come in lowest precedence first (bundled → user → project ancestors → cwd); a later root
wins a name. An override across scopes is `info`; two skills claiming one name inside the same
scope is a `warning`. Project roots are skipped (with a diagnostic) unless the run trusts the
project. Symlinks are followed once: directories are deduplicated by realpath, so a loop ends,
and a broken link is skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from shard_core.capabilities.skills.frontmatter import ParsedSkill, parse_skill
from shard_core.capabilities.skills.registry import (
    SkillDiagnostic,
    SkillRecord,
    SkillRegistry,
    SkillRoot,
)
from shard_core.engine.context_files import project_dirs

SKILL_FILE = "SKILL.md"
MAX_DEPTH = 4
"""how deep under a root a skill directory may sit"""
MAX_SKILL_BYTES = 1024 * 1024
"""a SKILL.md larger than this is not read at discovery (load_skill's own cap is smaller)"""


def default_roots(
    cwd: Path, *, shard_home: Path, user_home: Path, bundled: Sequence[Path] = ()
) -> list[SkillRoot]:
    """bundled → SHARD_HOME/skills, ~/.agents/skills → .shard/skills, .agents/skills from the
    git root down to cwd."""
    roots = [SkillRoot(p, "bundled") for p in bundled]
    roots += [
        SkillRoot(shard_home / "skills", "user"),
        SkillRoot(user_home / ".agents" / "skills", "user"),
    ]
    for folder in project_dirs(cwd):
        scope = f"project:{folder}"
        roots += [
            SkillRoot(folder / ".shard" / "skills", "project", scope),
            SkillRoot(folder / ".agents" / "skills", "project", scope),
        ]
    return roots


def load_skills(roots: Iterable[SkillRoot], *, trusted: bool) -> SkillRegistry:
    registry = SkillRegistry()
    seen: set[Path] = set()
    for root in roots:
        if not root.path.is_dir():
            continue
        if root.layer == "project" and not trusted:
            registry.diagnostics.append(
                SkillDiagnostic(
                    "warning", f"skipped {root.path}: project skills need --trust-project"
                )
            )
            continue
        for skill_md in _skill_files(root.path, seen):
            _merge(registry, root, skill_md)
    return registry


def read_skill(path: Path) -> ParsedSkill | str:
    """Parse one SKILL.md from disk, or say why it cannot be used."""
    try:
        size = path.stat().st_size
        if size > MAX_SKILL_BYTES:
            return f"{size} bytes; the discovery limit is {MAX_SKILL_BYTES}"
        return parse_skill(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return f"unreadable: {exc}"


def _merge(registry: SkillRegistry, root: SkillRoot, skill_md: Path) -> None:
    parsed = read_skill(skill_md)
    note = registry.diagnostics.append
    if isinstance(parsed, str):
        note(SkillDiagnostic("warning", f"skipped {skill_md}: {parsed}"))
        return
    previous = registry.skills.get(parsed.name)
    if previous is not None:
        same = previous.root.scope_key == root.scope_key
        note(
            SkillDiagnostic(
                "warning" if same else "info",
                f"{parsed.name}: {skill_md} ({root.layer}) overrides {previous.path} "
                f"({previous.layer})" + (" in the same scope" if same else ""),
            )
        )
    registry.skills[parsed.name] = SkillRecord(
        parsed.name, parsed.description, skill_md, root.layer, root, parsed.metadata
    )


def _skill_files(root: Path, seen: set[Path]) -> Iterator[Path]:
    """SKILL.md files under `root`, sorted; a directory holding one is not descended further."""
    stack: list[tuple[Path, int]] = [(root, 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            real = folder.resolve(strict=True)
        except (OSError, RuntimeError):
            continue  # a broken link or a loop the resolver gave up on
        if real in seen or not real.is_dir():
            continue
        seen.add(real)
        skill_md = folder / SKILL_FILE
        if depth > 0 and skill_md.is_file():
            yield skill_md
            continue
        if depth >= MAX_DEPTH:
            continue
        try:
            children = sorted(
                (c for c in folder.iterdir() if not c.name.startswith(".")), reverse=True
            )
        except OSError:
            continue
        stack.extend((c, depth + 1) for c in children if c.is_dir())
