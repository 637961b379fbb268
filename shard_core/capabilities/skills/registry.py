"""The skill registry: the live skills by parsed name, and what discovery had to say."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Layer = Literal["bundled", "user", "project"]
LAYERS: tuple[Layer, ...] = ("bundled", "user", "project")


@dataclass(frozen=True)
class SkillRoot:
    """A folder of skill directories. Later roots win a name; `scope` groups same-level roots."""

    path: Path
    layer: Layer
    scope: str = ""

    @property
    def scope_key(self) -> str:
        return self.scope or self.layer


@dataclass(frozen=True)
class SkillRecord:
    name: str
    description: str
    path: Path
    """the SKILL.md file (absolute, as discovered)"""
    layer: Layer
    root: SkillRoot
    metadata: dict[str, Any] = field(default_factory=dict[str, Any])
    """standard front-matter keys, for inspection only"""

    @property
    def directory(self) -> Path:
        return self.path.parent


@dataclass(frozen=True)
class SkillDiagnostic:
    level: Literal["info", "warning"]
    message: str

    def __str__(self) -> str:
        return f"skills: {self.message}"


@dataclass
class SkillRegistry:
    skills: dict[str, SkillRecord] = field(default_factory=dict[str, SkillRecord])
    diagnostics: list[SkillDiagnostic] = field(default_factory=list[SkillDiagnostic])

    def get(self, name: str) -> SkillRecord | None:
        return self.skills.get(name)

    def names(self) -> list[str]:
        return sorted(self.skills)

    def live(self) -> list[SkillRecord]:
        return [self.skills[n] for n in self.names()]
