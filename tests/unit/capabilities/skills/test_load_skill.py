"""load_skill: full body, directory, bounded resource listing, names only, size cap, re-reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from shard_core.capabilities.skills import (
    MAX_RESULT_BYTES,
    LoadSkillTool,
    SkillRegistry,
    SkillRoot,
    load_skills,
)
from shard_core.contracts import ToolContext
from shard_core.types import ToolResult
from tests.unit.capabilities.skills.conftest import FIXTURES, write_skill


def _ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path, roots=[tmp_path], agent_id="a", session_id="s", call_id="c")


async def _load(registry: SkillRegistry, name: object, tmp_path: Path) -> ToolResult:
    return await LoadSkillTool(lambda: registry).execute({"name": name}, _ctx(tmp_path))


def _body(path: Path) -> str:
    return path.read_text().split("---\n", 2)[2].strip("\n")


@pytest.mark.parametrize("name", ["brand-guidelines", "internal-comms", "webapp-testing"])
async def test_public_package_loads_complete_body_and_directory(name: str, tmp_path: Path) -> None:
    registry = load_skills([SkillRoot(FIXTURES, "bundled")], trusted=False)
    result = await _load(registry, name, tmp_path)

    directory = FIXTURES / name
    assert not result.is_error
    assert result.text.startswith(f'<skill name="{name}" directory="{directory}">\n')
    assert _body(directory / "SKILL.md") in result.text
    assert result.text.endswith("</skill>")
    assert result.details == {
        "skill": {
            "name": name,
            "path": str(directory / "SKILL.md"),
            "directory": str(directory),
        },
        # the activation checkpoint the turn loop persists, linked to this result
        "checkpoint": {"kind": "skill", "name": name, "path": str(directory / "SKILL.md")},
    }


async def test_resources_list_scripts_only_from_the_standard_folders(tmp_path: Path) -> None:
    registry = load_skills([SkillRoot(FIXTURES, "bundled")], trusted=False)
    result = await _load(registry, "webapp-testing", tmp_path)
    # examples/ is not a resource folder; scripts/ is; bodies are never read
    assert "<resources>\nscripts/with_server.py\n</resources>" in result.text
    assert "subprocess" not in result.text
    comms = await _load(registry, "internal-comms", tmp_path)
    assert "<resources>" not in comms.text


async def test_resource_listing_is_bounded_by_count_and_depth(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "big", "big", "many files")
    refs = root / "big" / "references"
    refs.mkdir()
    for i in range(300):
        (refs / f"r{i:03}.md").write_text("x")
    deep = root / "big" / "assets"
    for level in range(10):
        deep = deep / f"d{level}"
    deep.mkdir(parents=True)
    (deep / "too-deep.txt").write_text("x")
    (root / "big" / "assets" / "d0" / "ok.txt").write_text("x")

    result = await _load(load_skills([SkillRoot(root, "user")], trusted=True), "big", tmp_path)

    listed = result.text.split("<resources>\n")[1].split("\n</resources>")[0].splitlines()
    assert listed[0] == "assets/d0/ok.txt"
    assert listed[1:256] == [f"references/r{i:03}.md" for i in range(255)]
    assert listed[256] == "(45 more not listed)"
    assert "too-deep" not in result.text


@pytest.mark.parametrize("name", ["../secret", "/etc/passwd", "a/b", "..", "", 7, None])
async def test_paths_and_non_names_are_refused(name: object, tmp_path: Path) -> None:
    write_skill(tmp_path / "skills", "ok", "ok", "d")
    registry = load_skills([SkillRoot(tmp_path / "skills", "user")], trusted=True)
    result = await _load(registry, name, tmp_path)
    assert result.is_error
    assert result.text == (
        f"{name!r} is not a skill name: names are kebab-case words, never paths; available: ok"
    )


async def test_unknown_name_lists_the_live_ones(tmp_path: Path) -> None:
    write_skill(tmp_path / "skills", "ok", "ok", "d")
    registry = load_skills([SkillRoot(tmp_path / "skills", "user")], trusted=True)
    result = await _load(registry, "other", tmp_path)
    assert (result.is_error, result.text) == (True, "no skill named 'other'; available: ok")


async def test_oversized_skill_is_an_explicit_error_never_truncated(tmp_path: Path) -> None:
    body = "x" * (129 * 1024)
    write_skill(tmp_path / "skills", "huge", "huge", "too big", body)
    registry = load_skills([SkillRoot(tmp_path / "skills", "user")], trusted=True)

    result = await _load(registry, "huge", tmp_path)

    assert result.is_error
    size = result.details["bytes"]
    assert isinstance(size, int)
    assert size > MAX_RESULT_BYTES
    assert result.text == (
        f"skill 'huge' is {size} bytes rendered; the limit is {MAX_RESULT_BYTES} bytes, "
        "so it was not loaded (a skill body is never truncated)"
    )
    assert "skill" not in result.details or result.details["skill"] == "huge"


async def test_skill_md_is_reread_on_every_call(tmp_path: Path) -> None:
    path = write_skill(tmp_path / "skills", "s", "live", "d", "first body")
    registry = load_skills([SkillRoot(tmp_path / "skills", "user")], trusted=True)
    assert "first body" in (await _load(registry, "live", tmp_path)).text

    path.write_text("---\nname: live\ndescription: d\n---\nsecond body\n")
    again = await _load(registry, "live", tmp_path)
    assert "second body" in again.text
    assert "first body" not in again.text

    path.write_text("---\nname: renamed\ndescription: d\n---\nbody\n")
    renamed = await _load(registry, "live", tmp_path)
    assert renamed.is_error
    assert "now declares the name 'renamed'" in renamed.text

    path.unlink()
    gone = await _load(registry, "live", tmp_path)
    assert gone.is_error
    assert "cannot be loaded: unreadable" in gone.text
