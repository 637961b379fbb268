"""Context files: SHARD.md then AGENTS.md, layered user → project ancestors → cwd.

The project layer (everything under the git root, cwd included) is read only with project
trust; without it a diagnostic says what was skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from shard_core.types import SystemSection

NAMES = ("SHARD.md", "AGENTS.md")
MAX_BYTES = 64 * 1024


@dataclass
class ContextFiles:
    sections: list[SystemSection] = field(default_factory=list[SystemSection])
    diagnostics: list[str] = field(default_factory=list[str])


def project_dirs(cwd: Path) -> list[Path]:
    """The git root down to cwd, outer first; just cwd outside a repository."""
    cwd = cwd.resolve()
    chain = [cwd, *cwd.parents]
    for i, folder in enumerate(chain):
        if (folder / ".git").exists():
            return list(reversed(chain[: i + 1]))
    return [cwd]


def load_context_files(cwd: Path, user_dir: Path, *, trusted: bool) -> ContextFiles:
    found = ContextFiles()
    for name in NAMES:
        _add(found, user_dir / name, "user")
    for folder in project_dirs(cwd):
        for name in NAMES:
            path = folder / name
            if not path.is_file():
                continue
            if trusted:
                _add(found, path, "project")
            else:
                found.diagnostics.append(f"skipped {path}: project context needs --trust-project")
    return found


def _add(found: ContextFiles, path: Path, layer: str) -> None:
    if not path.is_file():
        return
    data = path.read_bytes()[:MAX_BYTES]
    text = data.decode("utf-8", "replace").strip()
    if text:
        found.sections.append(
            SystemSection(name=f"context:{layer}:{path}", text=f"# {path}\n\n{text}", stable=True)
        )
