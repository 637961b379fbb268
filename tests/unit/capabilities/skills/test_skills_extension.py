"""The skills capability installs through the ExtensionHost like any third-party extension."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from shard_core.capabilities.skills import SkillRoot, SkillsCapability
from shard_core.engine.extension_host import ExtensionHost
from shard_core.engine.prompt import PROMPT_SECTIONS_EVENT, contributed_sections
from tests.unit.capabilities.skills.conftest import FIXTURES, PUBLIC, write_skill


def _sections(host: ExtensionHost) -> list[Any]:
    sources = [h[1] for h in host.snapshot.handlers if h[0] == PROMPT_SECTIONS_EVENT]
    return contributed_sections(sources, [])


async def test_live_skills_register_load_skill_and_the_catalog() -> None:
    host = ExtensionHost()
    skills = SkillsCapability([SkillRoot(FIXTURES, "bundled")], trusted=False)

    assert await host.install("shard.skills", skills)

    assert host.snapshot.tools.get("load_skill") is not None
    [section] = _sections(host)
    assert (section.name, section.stable) == ("skills:catalog", True)
    assert all(f"- {name}: " in section.text for name in PUBLIC)


async def test_no_live_skill_means_no_tool_and_no_section(tmp_path: Path) -> None:
    host = ExtensionHost()
    write_skill(tmp_path / ".shard" / "skills", "p", "project-only", "d")
    roots = [SkillRoot(tmp_path / ".shard" / "skills", "project")]
    skills = SkillsCapability(roots, trusted=False)

    assert await host.install("shard.skills", skills)

    assert host.snapshot.tools.get("load_skill") is None
    assert _sections(host) == []
    assert [d.level for d in skills.registry.diagnostics] == ["warning"]


async def test_registered_skill_sources_are_consulted_below_user_skills(tmp_path: Path) -> None:
    ext_root, user_root = tmp_path / "from-extension", tmp_path / "user"
    write_skill(ext_root, "a", "shared", "extension version")
    write_skill(ext_root, "b", "extension-only", "only the extension has it")
    write_skill(user_root, "a", "shared", "user version")
    host = ExtensionHost()
    await host.install(
        "third.party",
        lambda api: api.register_skill_loader(lambda: [{"path": str(ext_root)}]),
    )
    sources = [spec for loader in host.snapshot.skill_loaders for spec in loader()]
    skills = SkillsCapability(
        [SkillRoot(user_root, "user")],
        trusted=False,
        sources=lambda: [*sources, {"path": 3}, {"path": "x", "layer": "system"}],
    )

    await host.install("shard.skills", skills)

    registry = skills.registry
    assert registry.names() == ["extension-only", "shared"]
    assert registry.skills["shared"].description == "user version"
    assert [d.message for d in registry.diagnostics[:2]] == [
        "ignored skill source {'path': 3}",
        "ignored skill source {'path': 'x', 'layer': 'system'}",
    ]
