"""Issue 32 item 4 at the gate: planted trust-gated config. Under a broad `Write(**)`/`Edit(**)`
the file tools wrote `.mcp.json`, `.agents/skills/…/SKILL.md`, `SHARD.md`, `AGENTS.md` with no
question; the person's next `--trust-project` run then started the planted MCP command. Every
protected place now asks (and is denied headless); a rule naming the place still allows it."""

from __future__ import annotations

from pathlib import Path

import pytest

from shard_core.engine.permissions import GrantStore, RuleGate, explain
from shard_core.types import Deny
from shard_core.types.protected import SANDBOX_READ_ONLY, protected_part
from tests.unit.engine.permissions._support import Log, rules

PLANTED = [
    ".mcp.json",
    ".agents/skills/helper/SKILL.md",
    "SHARD.md",
    "AGENTS.md",
    "sub/AGENTS.md",
    "sub/.mcp.json",
    ".shard/extensions/x.py",
    ".git/hooks/pre-commit",
    ".git/config",
    ".git/info/attributes",
]
BROAD = rules(allow=("Write(**)", "Edit(**)", "NotebookEdit(**)"))


@pytest.mark.parametrize("tool", ["write", "edit", "notebook_edit"])
@pytest.mark.parametrize("path", PLANTED)
def test_item4_planted_config_asks_under_a_broad_rule(query, tool: str, path: str) -> None:
    found = explain(query(tool, path=path), BROAD)

    assert (found.decision, found.ask) == ("ask", "guarded")
    assert "which is protected" in found.reason
    assert found.would_allow is False  # allow_if_rule_matches does not wave it through


@pytest.mark.parametrize("policy", ["deny", "allow_if_rule_matches"])
@pytest.mark.parametrize("path", PLANTED)
async def test_item4_planted_config_is_denied_headless(
    home: Path, query, log: Log, policy: str, path: str
) -> None:
    gate = RuleGate(
        rules=BROAD,
        grants=GrantStore("agent-1"),
        record=log.record,
        has_responder=lambda: False,
        headless_policy=policy,  # pyright: ignore[reportArgumentType]
    )
    outcome = await gate.authorize(query("write", path=path))

    assert isinstance(outcome.decision, Deny)
    assert outcome.source == "headless"


def test_item4_a_symlink_into_a_protected_place_is_protected(query, ws: Path) -> None:
    (ws / ".agents").mkdir()
    (ws / "innocent").symlink_to(ws / ".agents")
    (ws / "notes.md").symlink_to(ws / "AGENTS.md")

    assert explain(query("write", path="innocent/skills/x/SKILL.md"), BROAD).decision == "ask"
    assert explain(query("write", path="notes.md"), BROAD).decision == "ask"


def test_item4_shell_redirects_into_planted_config_ask(query) -> None:
    found = explain(
        query("bash", command="echo '{}' > .mcp.json"), rules(allow=("Bash", "Edit(**)"))
    )

    assert found.decision == "ask"
    assert "which is protected" in found.reason


def test_item4_a_rule_naming_the_place_allows_it(query) -> None:
    named = rules(allow=("Edit(AGENTS.md)", "Write(.agents/skills/**)", "Write(**/SHARD.md)"))

    assert explain(query("edit", path="AGENTS.md"), named).decision == "allow"
    assert explain(query("write", path=".agents/skills/x/SKILL.md"), named).decision == "allow"
    assert explain(query("write", path="docs/SHARD.md"), named).decision == "allow"
    assert explain(query("write", path=".mcp.json"), named).decision == "ask"


@pytest.mark.parametrize(
    "path", ["src/agents.py", "docs/shard.md.bak", "README.md", "my.mcp.json", "agents/x.py"]
)
def test_item4_ordinary_paths_are_not_protected(query, path: str) -> None:
    assert protected_part(path) is None
    assert explain(query("write", path=path), BROAD).decision == "allow"


def test_item4_reading_planted_config_is_fine(query) -> None:
    assert explain(query("read", path=".mcp.json"), rules()).decision == "allow"


def test_item4_one_list_for_the_gate_and_a_sandbox() -> None:
    assert all(protected_part(p) for p in SANDBOX_READ_ONLY)
    assert protected_part(".GIT/hooks/x") == ".git"  # case-insensitive file systems
