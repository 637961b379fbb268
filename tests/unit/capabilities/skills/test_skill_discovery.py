"""Discovery: real public packages, precedence and collisions, trust, links, bad front-matter."""

from __future__ import annotations

import os
from pathlib import Path

from shard_core.capabilities.skills import (
    SkillDiagnostic,
    SkillRoot,
    catalog_section,
    catalog_text,
    default_roots,
    load_skills,
    parse_skill,
)
from tests.unit.capabilities.skills.conftest import FIXTURES, PUBLIC, write_skill


def test_real_public_packages_are_discovered_with_metadata_only_catalog() -> None:
    registry = load_skills([SkillRoot(FIXTURES, "bundled")], trusted=False)

    assert registry.names() == sorted(PUBLIC)
    assert registry.diagnostics == []
    brand = registry.skills["brand-guidelines"]
    assert brand.path == FIXTURES / "brand-guidelines" / "SKILL.md"
    assert brand.metadata == {"license": "Complete terms in LICENSE.txt"}
    text = catalog_text(registry)
    assert (
        "- brand-guidelines: Applies Anthropic's official brand colors and typography to any "
        "sort of artifact that may benefit from having Anthropic's look-and-feel. Use it when "
        "brand colors or style guidelines, visual formatting, or company design standards "
        f"apply. ({brand.path})"
    ) in text.splitlines()
    lines = text.split("<available_skills>\n")[1].split("\n</available_skills>")[0].splitlines()
    assert [line.split(":")[0] for line in lines] == [f"- {n}" for n in sorted(PUBLIC)]
    assert "# Anthropic Brand Styling" not in text  # bodies stay out of the catalog


def test_no_skills_means_no_catalog(tmp_path: Path) -> None:
    registry = load_skills([SkillRoot(tmp_path / "absent", "user")], trusted=True)
    assert registry.skills == {}
    assert catalog_section(registry) is None


def test_precedence_bundled_user_project_and_collision_levels(tmp_path: Path) -> None:
    home, user, repo = tmp_path / "shard-home", tmp_path / "user", tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    cwd = repo / "pkg"
    bundled = tmp_path / "bundled"
    write_skill(bundled, "a", "review", "bundled review")
    write_skill(bundled, "keep", "only-bundled", "kept")
    write_skill(home / "skills", "r", "review", "user review")
    write_skill(user / ".agents" / "skills", "x", "review", "agents review")  # same scope: user
    write_skill(repo / ".agents" / "skills", "outer", "review", "repo-root review")
    write_skill(cwd / ".shard" / "skills", "inner", "review", "cwd review")

    roots = default_roots(cwd, shard_home=home, user_home=user, bundled=[bundled])
    registry = load_skills(roots, trusted=True)

    assert registry.names() == ["only-bundled", "review"]
    assert registry.skills["review"].description == "cwd review"
    assert registry.skills["review"].layer == "project"
    levels = [(d.level, d.message.split(" overrides ")[0]) for d in registry.diagnostics]
    assert levels == [
        ("info", f"review: {home / 'skills' / 'r' / 'SKILL.md'} (user)"),
        ("warning", f"review: {user / '.agents' / 'skills' / 'x' / 'SKILL.md'} (user)"),
        ("info", f"review: {repo / '.agents' / 'skills' / 'outer' / 'SKILL.md'} (project)"),
        ("info", f"review: {cwd / '.shard' / 'skills' / 'inner' / 'SKILL.md'} (project)"),
    ]
    assert registry.diagnostics[1].message.endswith("in the same scope")


def test_project_skills_need_trust(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write_skill(tmp_path / ".shard" / "skills", "p", "project-only", "from the repo")
    roots = default_roots(tmp_path, shard_home=tmp_path / "h", user_home=tmp_path / "u")

    registry = load_skills(roots, trusted=False)

    assert registry.skills == {}
    assert registry.diagnostics == [
        SkillDiagnostic(
            "warning",
            f"skipped {tmp_path / '.shard' / 'skills'}: project skills need --trust-project",
        )
    ]
    assert load_skills(roots, trusted=True).names() == ["project-only"]


def test_merge_is_by_parsed_name_not_folder(tmp_path: Path) -> None:
    write_skill(tmp_path, "folder-name", "parsed-name", "d")
    assert load_skills([SkillRoot(tmp_path, "user")], trusted=True).names() == ["parsed-name"]


def test_symlink_loops_are_deduped_and_broken_links_skipped(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root / "group", "one", "one", "first")
    os.symlink(root, root / "group" / "loop")  # a loop back to the root
    os.symlink(root / "group" / "one", root / "alias")  # the same skill twice
    os.symlink(tmp_path / "missing", root / "broken")

    registry = load_skills([SkillRoot(root, "user")], trusted=True)

    assert registry.names() == ["one"]
    assert registry.diagnostics == []


def test_invalid_front_matter_is_skipped_with_a_warning(tmp_path: Path) -> None:
    write_skill(tmp_path, "bad", "Not_Kebab", "d")
    write_skill(tmp_path, "empty", "empty-desc", "''")
    (tmp_path / "nofm").mkdir()
    (tmp_path / "nofm" / "SKILL.md").write_text("# just markdown\n")
    write_skill(tmp_path, "good", "good", "fine")

    registry = load_skills([SkillRoot(tmp_path, "user")], trusted=True)

    assert registry.names() == ["good"]
    assert sorted(d.message.split(": ", 1)[1] for d in registry.diagnostics) == [
        "description is missing or empty",
        "name 'Not_Kebab' is not kebab-case (a-z, 0-9, single hyphens, at most 64)",
        "no front-matter: SKILL.md must start with a `---` line",
    ]
    assert {d.level for d in registry.diagnostics} == {"warning"}


def test_parse_keeps_standard_metadata_and_drops_the_rest() -> None:
    parsed = parse_skill(
        "---\nname: x\ndescription: |\n  two\n  lines\nversion: 1.2\n"
        "allowed-tools: [Bash]\nrun-this: rm -rf /\n---\nbody\n"
    )
    assert not isinstance(parsed, str)
    assert (parsed.name, parsed.description, parsed.body) == ("x", "two lines", "body")
    assert parsed.metadata == {"version": 1.2, "allowed-tools": ["Bash"]}
