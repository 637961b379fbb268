"""The bypass matrix: compound and disguised shell commands never slip past the gate.

Allow rules `Bash(git add:*)` and `Bash(ls:*)`, deny rule `Bash(rm:*)`. Every case must deny or
ask — never allow — and the explanation must name the sub-command that decided.
"""

from __future__ import annotations

import pytest

from shard_core.engine.permissions import explain
from tests.unit.engine.permissions._support import rules

RULES = rules(allow=("Bash(git add:*)", "Bash(ls:*)"), deny=("Bash(rm:*)",))

# (command, decision, argv of the deciding part — None when the whole command is unanalysable)
MATRIX = [
    ("git add x && git push", "ask", ("git", "push")),
    ("git add x; rm -rf y", "deny", ("rm", "-rf", "y")),
    ("ls || curl x", "ask", ("curl", "x")),
    ("ls | sh", "ask", ("sh",)),
    ("ls\ncurl x", "ask", ("curl", "x")),
    ("ls\nrm y", "deny", ("rm", "y")),
    ("ls $(rm -rf y)", "deny", ("rm", "-rf", "y")),
    ("ls `rm y`", "deny", ("rm", "y")),
    ("ls $(curl x)", "ask", ("curl", "x")),
    ("ls <(rm y)", "deny", ("rm", "y")),
    ("ls > ../outside", "ask", ("ls",)),
    ("FOO=1 rm y", "deny", ("rm", "y")),
    ("env rm y", "deny", ("rm", "y")),
    ("command rm y", "deny", ("rm", "y")),
    ("\\rm y", "deny", ("rm", "y")),
    ("/bin/rm y", "deny", ("rm", "y")),
    ("bash -c 'rm y'", "deny", ("rm", "y")),
    ("xargs rm < list", "deny", ("rm",)),
    ("rm -fr y", "deny", ("rm", "-fr", "y")),
    ("rm --recursive --force y", "deny", ("rm", "--recursive", "--force", "y")),
    ("sh <<EOF\nrm y\nEOF", "deny", ("rm", "y")),
    ("sh <<EOF\ncurl x\nEOF", "ask", None),
    ("cat <<EOF | sh\nrm -rf y\nEOF", "ask", ("sh",)),
    ('ls "unterminated', "ask", None),
    ('ls && eval "$X"', "ask", None),
]


@pytest.mark.parametrize(("command", "decision", "decider"), MATRIX, ids=[c for c, *_ in MATRIX])
def test_never_allowed(query, command, decision, decider) -> None:
    found = explain(query("bash", command=command), RULES)

    assert found.decision == decision != "allow"
    if decider is None:
        assert found.decider is None
        assert found.ask == "unclear"
        assert found.reason.startswith("the command cannot be fully analysed: ")
    else:
        assert found.decider is not None
        assert found.decider.argv == decider
        assert found.decider.decision == decision
        assert found.decider in found.parts


def test_deny_names_the_rule_and_the_part(query) -> None:
    found = explain(query("bash", command="git add x; rm -rf y"), RULES)

    assert found.rule == "Bash(rm:*)"
    assert found.by == "rule"
    assert found.reason == "`rm -rf y` is denied by Bash(rm:*) (test)"
    assert [(p.text, p.decision, p.rule) for p in found.parts] == [
        ("git add x", "allow", "Bash(git add:*)"),
        ("rm -rf y", "deny", "Bash(rm:*)"),
    ]


def test_write_outside_asks_even_though_ls_is_allowed(query) -> None:
    found = explain(query("bash", command="ls > ../outside"), RULES)

    assert found.decider is not None
    assert found.decider.text == "ls > ../outside"
    assert found.ask == "guarded"
    assert "writing ../outside is outside the workspace" in found.reason


def test_unparseable_parts_can_still_deny_but_never_allow(query) -> None:
    # `ok` is False (a heredoc feeds a shell), yet the best-effort list still finds rm.
    assert explain(query("bash", command="sh <<EOF\nls\nEOF"), RULES).decision == "ask"


@pytest.mark.parametrize(
    ("command", "rules_used"),
    [
        ("git add x && ls", "Bash(git add:*), Bash(ls:*)"),
        ("ls -la", "Bash(ls:*)"),
    ],
)
def test_positives(query, command, rules_used) -> None:
    found = explain(query("bash", command=command), RULES)

    assert found.decision == "allow"
    assert found.rule == rules_used
    assert all(p.decision == "allow" for p in found.parts)


def test_prefix_rules_match_argv_words_not_the_raw_string(query) -> None:
    prefix = rules(allow=("Bash(npm run test:*)",))

    assert explain(query("bash", command="npm run test --watch"), prefix).decision == "allow"
    assert explain(query("bash", command="npm run 'test' -- -x"), prefix).decision == "allow"
    assert explain(query("bash", command="npm run test:unit"), prefix).decision == "ask"
    assert explain(query("bash", command="npm run tests"), prefix).decision == "ask"


def test_exact_rule_matches_only_that_command(query) -> None:
    exact = rules(allow=('Bash(git commit -m "first draft")',))

    assert explain(query("bash", command="git  commit -m 'first draft'"), exact).decision == "allow"
    assert explain(query("bash", command="git commit -m 'first draft' -a"), exact).decision == "ask"
    assert explain(query("bash", command="git commit -m first"), exact).decision == "ask"


def test_sudo_needs_its_own_rule(query) -> None:
    found = explain(query("bash", command="sudo ls"), RULES)

    assert found.decision == "ask"
    assert found.decider is not None
    assert found.decider.argv == ("sudo", "ls")


def test_empty_and_missing_commands_ask(query) -> None:
    assert explain(query("bash", command="   "), RULES).decision == "ask"
    assert explain(query("bash"), RULES).decision == "ask"
    assert explain(query("bash", command="# just a comment"), RULES).decision == "ask"


def test_analyser_crash_asks(query, monkeypatch) -> None:
    def boom(command: str) -> None:
        raise RuntimeError("grammar exploded")

    monkeypatch.setattr("shard_core.engine.permissions.shell_policy.analyze", boom)

    found = explain(query("bash", command="ls"), RULES)

    assert found.decision == "ask"
    assert "grammar exploded" in found.reason
