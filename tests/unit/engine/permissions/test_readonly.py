"""The built-in read-only shell allowlist: small, and only for reads inside the workspace."""

from __future__ import annotations

from pathlib import Path

import pytest

from shard_core.engine.permissions import explain
from tests.unit.engine.permissions._support import rules

NONE = rules()


@pytest.mark.parametrize(
    "command",
    [
        "ls -la",
        "cat README.md",
        "head -n 5 a.txt | wc -l",
        "pwd",
        "echo $HOME",
        "grep -rn TODO src",
        "rg --glob '*.py' foo",
        "find . -name '*.py'",
        "git status --short",
        "git log --oneline -5",
        "git diff HEAD~1",
        "git show HEAD:README.md",
        "tail -f log.txt",
    ],
)
def test_allowed_without_a_rule(query, command) -> None:
    found = explain(query("bash", command=command), NONE)

    assert found.decision == "allow"
    assert found.by == "mode"
    assert found.rule is None


@pytest.mark.parametrize(
    "command",
    [
        "cat /etc/passwd",
        "cat ~/.ssh/id_rsa",
        "cat ../sibling/file",
        "grep -f/etc/shadow x",
        "grep --file=/etc/shadow x",
        "cat $FILE",
        "find . -delete",
        "find . -exec cat {} ;",
        "find . -fprint out",
        "rg --pre ./evil x",
        "git push",
        "git diff --output=patch.txt",
        "git diff --ext-diff",
        "git -C /elsewhere status",
        "ls > listing.txt",
        "ls && echo hi > f",
        "cat a | tee b",
        "sort a",
        "xargs cat < list",
    ],
)
def test_asks(query, command) -> None:
    assert explain(query("bash", command=command), NONE).decision == "ask"


def test_a_symlink_out_of_the_workspace_is_not_a_local_read(
    query, ws: Path, tmp_path: Path
) -> None:
    (tmp_path / "out").mkdir()
    (ws / "link").symlink_to(tmp_path / "out")

    assert explain(query("bash", command="cat link/file"), NONE).decision == "ask"


def test_read_deny_and_ask_rules_make_the_allowlist_step_aside(query, ws: Path) -> None:
    found = explain(query("bash", command="cat secrets/key"), rules(deny=("Read(secrets/**)",)))
    asked = explain(query("bash", command="cat .env"), rules(ask=("Read(.env)",)))

    assert found.decision == "ask"
    assert asked.decision == "ask"
