"""Skill test helpers: write a SKILL.md package, and the real public packages in fixtures."""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).parents[3] / "fixtures" / "skills"
PUBLIC = ("brand-guidelines", "frontend-design", "internal-comms", "webapp-testing")


def write_skill(root: Path, folder: str, name: str, description: str, body: str = "Do it.") -> Path:
    directory = root / folder
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "SKILL.md"
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\n\n{body}\n")
    return path
