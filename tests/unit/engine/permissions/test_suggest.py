"""Suggested rules: the narrowest sensible rule, never one that also covers a denied command."""

from __future__ import annotations

import pytest

from shard_core.engine.permissions import explain
from tests.unit.engine.permissions._support import rules


@pytest.mark.parametrize(
    ("command", "suggested"),
    [
        ("git push origin main", "Bash(git push:*)"),
        ("npm run build", "Bash(npm run:*)"),
        ("cargo test --all", "Bash(cargo test:*)"),
        ("git --no-pager push", "Bash(git:*)"),
        ("curl https://x", "Bash(curl:*)"),
        ("python script.py", "Bash(python script.py)"),
        ("ls | sh", None),
        ("git add x && git push", "Bash(git push:*)"),
        ("npm test && npm run build", None),
        ("echo hi > out.txt", None),
        ("> out.txt", "Edit(out.txt)"),
        ("ls > 'a*b'", r"Edit(a\*b)"),
    ],
)
def test_bash_suggestions(query, command, suggested) -> None:
    found = explain(query("bash", command=command), rules(allow=("Bash(git add:*)", "Bash(ls:*)")))

    assert found.decision == "ask"
    assert found.suggested_rule == suggested


def test_a_suggestion_never_covers_a_denied_command(query) -> None:
    deny = rules(deny=("Bash(git push --force:*)",))

    found = explain(query("bash", command="git push origin main"), deny)

    assert found.suggested_rule == "Bash(git push origin main)"


def test_suggestions_for_paths(query) -> None:
    assert explain(query("write", path="src/a b.py"), rules()).suggested_rule == "Edit(src/a b.py)"
    assert explain(query("read", path="/etc/hosts"), rules()).suggested_rule == "Read(/etc/hosts)"


def test_no_suggestion_when_an_ask_rule_forces_the_ask(query) -> None:
    found = explain(query("bash", command="git push"), rules(ask=("Bash(git push:*)",)))

    assert (found.decision, found.ask, found.suggested_rule) == ("ask", "forced", None)


def test_the_suggestion_allows_the_call_next_time(query) -> None:
    for command in ("git push origin main", "> out.txt", "curl -s x"):
        found = explain(query("bash", command=command), rules())
        assert found.suggested_rule is not None
        again = explain(query("bash", command=command), rules(allow=(found.suggested_rule,)))
        assert again.decision == "allow", command
