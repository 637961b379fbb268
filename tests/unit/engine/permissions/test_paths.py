"""Paths: real paths decide containment; outside the workspace and .git/.shard writes ask."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from shard_core.engine.permissions import explain
from tests.unit.engine.permissions._support import rules

NONE = rules()


@pytest.mark.parametrize(
    ("tool", "path"),
    [("read", "../x"), ("read", "/etc/passwd"), ("read", "~/.ssh/id_rsa"), ("ls", "/")],
)
def test_outside_the_workspace_asks(query, tool, path) -> None:
    found = explain(query(tool, path=path), NONE)

    assert found.decision == "ask"
    assert found.ask == "guarded"
    assert "is outside the workspace" in found.reason


def test_reads_inside_are_allowed_by_default(query, ws: Path) -> None:
    (ws / "src").mkdir()

    found = explain(query("read", path="src/a.py"), NONE)

    assert (found.decision, found.by, found.rule) == ("allow", "mode", None)
    assert found.reason == "read src/a.py is read-only inside the workspace"
    assert explain(query("grep", pattern="x"), NONE).decision == "allow"  # path defaults to "."


def test_symlink_pointing_out_is_outside(query, ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret").write_text("s")
    (ws / "link").symlink_to(outside)

    found = explain(query("read", path="link/secret"), rules(allow=("Read(link/**)",)))

    assert found.decision == "ask"
    assert str(Path(os.path.realpath(outside)) / "secret") in found.reason


def test_deny_rules_see_the_path_as_written_too(query, ws: Path) -> None:
    (ws / "secrets").mkdir()
    (ws / "alias").symlink_to(ws / "secrets")
    deny = rules(deny=("Read(alias/**)",))

    assert explain(query("read", path="alias/key"), deny).decision == "deny"


@pytest.mark.parametrize("path", [".git/config", ".git/hooks/pre-commit", "sub/.shard/rules/x"])
def test_writes_under_protected_dirs_ask_even_with_a_broad_rule(query, path) -> None:
    found = explain(query("write", path=path), rules(allow=("Edit(**)",)))

    assert found.decision == "ask"
    assert found.ask == "guarded"
    assert "which is protected" in found.reason
    assert found.suggested_rule == f"Edit({path})"


def test_a_rule_naming_the_protected_dir_allows(query) -> None:
    named = rules(allow=("Edit(.git/config)", "Edit(.shard/**)"))

    assert explain(query("edit", path=".git/config"), named).decision == "allow"
    assert explain(query("write", path=".shard/rules/a.json"), named).decision == "allow"
    assert explain(query("write", path=".git/HEAD"), named).decision == "ask"


def test_reading_git_internals_is_fine(query) -> None:
    assert explain(query("read", path=".git/config"), NONE).decision == "allow"


def test_shell_writes_into_git_ask(query) -> None:
    found = explain(
        query("bash", command="echo x > .git/hooks/post-checkout"),
        rules(allow=("Bash", "Edit(**)")),
    )

    assert found.decision == "ask"
    assert found.decider is not None
    assert "which is protected" in found.reason


def test_mutating_tools_ask_without_a_rule(query) -> None:
    found = explain(query("edit", path="src/a.py"), NONE)

    assert (found.decision, found.ask, found.suggested_rule) == ("ask", "unruled", "Edit(src/a.py)")


def test_edit_rules_cover_write_and_write_rules_do_not_cover_edit(query) -> None:
    assert explain(query("write", path="a.py"), rules(allow=("Edit(**/*.py)",))).decision == "allow"
    assert explain(query("edit", path="docs/a"), rules(allow=("Write(docs/**)",))).decision == "ask"
    assert (
        explain(query("write", path="docs/a"), rules(allow=("Write(docs/**)",))).decision == "allow"
    )


def test_read_deny_covers_grep_find_ls(query, ws: Path) -> None:
    (ws / "secrets").mkdir()
    deny = rules(deny=("Read(secrets/**)",))

    for tool in ("read", "grep", "find", "ls"):
        found = explain(query(tool, path="secrets", pattern="x"), deny)
        assert found.decision == "deny", tool


def test_bare_allow_rules_stop_at_the_workspace_edge(query) -> None:
    assert explain(query("read", path="/etc/passwd"), rules(allow=("Read",))).decision == "ask"
    assert explain(query("write", path="a.txt"), rules(allow=("Write",))).decision == "allow"


def test_absolute_and_home_rules_reach_outside(query, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "notes").mkdir()

    assert (
        explain(query("read", path="/etc/passwd"), rules(allow=("Read(/etc/passwd)",))).decision
        == "allow"
    )
    assert (
        explain(query("read", path="~/notes/a.md"), rules(allow=("Read(~/notes/**)",))).decision
        == "allow"
    )
    assert (
        explain(query("read", path="~/.ssh/id_rsa"), rules(allow=("Read(~/notes/**)",))).decision
        == "ask"
    )


def test_bad_paths_ask(query) -> None:
    assert explain(query("read", path="a\x00b"), NONE).ask == "unclear"
    assert explain(query("write"), NONE).decision == "ask"
    assert explain(query("read", path=7), NONE).decision == "ask"


def test_other_tools(query) -> None:
    assert explain(query("recall", read_only=True), NONE).decision == "allow"
    mcp = explain(query("mcp__github__list", read_only=True), NONE)
    assert (mcp.decision, mcp.suggested_rule) == ("ask", "mcp__github__list")
    allowed = explain(query("mcp__github__list"), rules(allow=("mcp__github__*",)))
    assert (allowed.decision, allowed.rule) == ("allow", "mcp__github__*")
