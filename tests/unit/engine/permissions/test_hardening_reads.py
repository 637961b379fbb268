"""Issue 20 item 1: the read-only allowlist judges what bash will do with a command's words.

Reads that were allowed on main and printed a file outside the workspace: input redirects,
tilde forms, globs and `?` patterns that expand to a symlink pointing out, `grep -R` following a
symlink. Each now asks (or is denied by a Read rule); a few controls show plain local reads stay
allowed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from shard_core.engine.permissions import explain
from shard_core.engine.permissions.shell import analyze
from tests.unit.engine.permissions._support import rules

NONE = rules()


@pytest.fixture
def tree(ws: Path, tmp_path: Path) -> Path:
    """A workspace with local files, and links to a secret file and a directory outside it."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text("SECRET\n")
    (ws / "a.txt").write_text("a\n")
    (ws / "sub").mkdir()
    (ws / "sub" / "b.txt").write_text("b\n")
    (ws / "link").symlink_to(outside / "secret")
    (ws / "sub" / "dirlink").symlink_to(outside)
    return ws


def decision(query, command: str, book=NONE) -> str:
    return explain(query("bash", command=command), book).decision


@pytest.mark.parametrize(
    "command",
    [
        "cat < ~/.ssh/id_rsa",
        "cat < /etc/passwd",
        "wc -l < /etc/passwd",
        "cat 0</etc/passwd",
        "cat < link",
        "{ cat; } < /etc/passwd",
        "bash -c cat < /etc/passwd",
    ],
)
def test_input_redirect_outside_the_workspace_asks(query, tree: Path, command: str) -> None:
    assert decision(query, command) == "ask"


@pytest.mark.parametrize(
    "command", ["echo $(< /etc/passwd)", "echo $(< link)", 'echo "$(< ../outside/secret)"']
)
def test_substitution_redirect_reads_ask(query, tree: Path, command: str) -> None:
    assert decision(query, command) == "ask"


def test_input_redirect_meets_read_deny_rules(query, tree: Path) -> None:
    book = rules(deny=("Read(sub/**)",))

    assert decision(query, "cat < sub/b.txt", book) == "deny"
    assert decision(query, "echo $(< sub/b.txt)", book) == "deny"


def test_input_redirect_is_judged_for_any_command(query, tree: Path) -> None:
    book = rules(allow=("Bash(python:*)",))

    assert decision(query, "python tool.py < /etc/passwd", book) == "ask"
    assert decision(query, "python tool.py < a.txt", book) == "allow"


@pytest.mark.parametrize(
    "command",
    [
        "cat < *",
        "cat < l?nk",
        "cat < $F",
        "cat < ~+/x",
        "cat < {a.txt,link}",
    ],
)
def test_redirect_target_bash_would_expand_asks(query, tree: Path, command: str) -> None:
    assert decision(query, command) == "ask"


def test_glob_write_target_asks_even_under_a_broad_edit_rule(query, tree: Path) -> None:
    book = rules(allow=("Edit(**)", "Bash(echo:*)", "Bash(tee:*)"))

    assert decision(query, "echo x > l?nk", book) == "ask"
    assert decision(query, "echo x | tee l*", book) == "ask"
    assert decision(query, "echo x > out.txt", book) == "allow"


@pytest.mark.parametrize(
    "command",
    ["cat ~+/../outside/secret", "cat ~-/x", "ls ~root", "cat ~+", "cat a=~/x", "cat ~/x"],
)
def test_tilde_forms_ask(query, tree: Path, command: str) -> None:
    assert decision(query, command) == "ask"


@pytest.mark.parametrize(
    "command",
    [
        "cat *",
        "tail l?nk",
        "head l*",
        "cat [l]ink",
        "cat LINK",  # not a glob: a missing local file, allowed below
        "cat LIN?",  # nocaseglob (an inherited BASHOPTS) would match `link`
        "cat sub/*/secret",
        "cat */dirlink/*",
        "wc -c sub/dirl*",
        "grep -r SECRET *",
        "cat .*",
    ],
)
def test_glob_reaching_a_symlink_out_asks(query, tree: Path, command: str) -> None:
    expected = "allow" if command == "cat LINK" else "ask"
    assert decision(query, command) == expected


@pytest.mark.parametrize(
    "command",
    ["cat {a.txt,link}", "cat $HOME/x", "cat ${HOME}/x", "cat ${F:-/etc/passwd}", "cat sub/**"],
)
def test_unmodelled_expansions_ask(query, tree: Path, command: str) -> None:
    assert decision(query, command) == "ask"


@pytest.mark.parametrize(
    "command",
    [
        "grep -R SECRET .",
        "grep -nR SECRET",
        "grep --dereference-recursive SECRET sub",
        "rg -L SECRET",
        "rg --follow SECRET",
        "find -L . -name secret",
        "find . -follow -name secret",
        "ls -RL",
        "ls -R --dereference sub",
    ],
)
def test_recursive_read_following_a_symlink_out_asks(query, tree: Path, command: str) -> None:
    assert decision(query, command) == "ask"


@pytest.mark.parametrize(
    "command",
    [
        "grep -flink x a.txt",
        "grep -f link x a.txt",
        "RIPGREP_CONFIG_PATH=rc rg x",
        "GLOBIGNORE=x; cat *.txt",
        "wc --files0-from=list",
        "find . -files0-from list",
        "rg --hostname-bin=./x foo",
    ],
)
def test_options_that_reach_further_ask(query, tree: Path, command: str) -> None:
    assert decision(query, command) == "ask"


@pytest.mark.parametrize(
    "command",
    [
        "cd /etc && cat passwd",
        "(cd ../outside; cat secret)",
        "pushd ../outside; wc -c secret",
        "cd .. && cat < outside/secret",
        "cd ../outside; echo x > secret",
        "env -C ../outside cat secret",
        "env --chdir=/etc cat passwd",
        "sudo -D /etc cat passwd",
    ],
)
def test_a_directory_change_makes_relative_paths_unknown(query, tree: Path, command: str) -> None:
    book = rules(allow=("Bash(cd:*)", "Bash(pushd:*)", "Bash(echo:*)", "Edit(**)"))

    assert decision(query, command, book) == "ask"


@pytest.mark.parametrize("command", ["env -C /tmp rm y", "env --chdir=x cat y", "sudo -D / ls"])
def test_wrappers_that_change_directory_are_not_analysable(command: str) -> None:
    analysis = analyze(command)

    assert analysis.ok is False
    assert analysis.problems[0].endswith("is not analysable")


def test_find_fprint_is_a_write(query, tree: Path) -> None:
    book = rules(allow=("Bash(find:*)",))

    assert decision(query, "find . -fprint /tmp/listing", book) == "ask"


@pytest.mark.parametrize(
    "command",
    [
        "cat *.txt",
        "cat sub/*.txt",
        "wc -l < a.txt",
        "echo $(< a.txt)",
        "grep -rn SECRET .",  # -r does not follow symlinks inside the tree
        "rg SECRET",
        "find . -name '*.txt'",
        "ls -R",
        "git --no-pager log --oneline",
        'cat "*"',
    ],
)
def test_local_reads_stay_allowed(query, tree: Path, command: str) -> None:
    assert decision(query, command) == "allow"


def test_following_reads_are_allowed_when_no_link_leads_out(query, ws: Path) -> None:
    (ws / "src").mkdir()
    (ws / "src" / "m.py").write_text("x\n")
    (ws / "alias").symlink_to(ws / "src")

    assert decision(query, "grep -R x .") == "allow"
    assert decision(query, "cat alias/*") == "allow"
