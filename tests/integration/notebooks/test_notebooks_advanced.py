"""Notebooks 04 to 06 run from a clean copy with no API key, and show what they promise: the second
client's answer in the agent's events, rules/grants/headless decisions and plan → build, the
compaction summary's sections and the folded detail recall finds."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest

from tests.integration.notebooks.conftest import NOTEBOOKS, NotebookRun, outputs_text

# one worker runs this module: its module-scoped fixture is built once (pytest-xdist)
pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("notebooks_advanced")]
ADVANCED = [
    "04-multi-client.ipynb",
    "05-permissions-and-modes.ipynb",
    "06-compaction-and-recall.ipynb",
]
RunNotebook = Callable[..., NotebookRun]


def output(run: NotebookRun, source_part: str) -> str:
    """The text output of the one code cell whose source contains `source_part`."""
    cells = [c for c in run.notebook.cells if c.cell_type == "code" and source_part in c.source]
    assert len(cells) == 1, f"{len(cells)} cells contain {source_part!r}"
    return outputs_text(cells[0]).replace("\r\n", "\n")  # `!` commands print through a pty


def leftovers(marker: str) -> list[str]:
    """Live processes whose environment mentions `marker` (the run's temp folders): a process
    the notebook started and orphaned is no longer below the test, but it still carries them."""
    found: list[str] = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if marker.encode() in (proc / "environ").read_bytes():
                found.append(f"{proc.name}: {(proc / 'cmdline').read_bytes()[:200]!r}")
        except OSError:
            continue
    return found


def run_clean(run_notebook: RunNotebook, name: str) -> NotebookRun:
    run = run_notebook(name)
    assert leftovers(str(run.folder.parent / "env")) == []
    errors = [
        o for c in run.notebook.cells for o in c.get("outputs", []) if o.output_type == "error"
    ]
    assert errors == []
    return run


@pytest.mark.parametrize("name", ADVANCED)
def test_the_notebook_is_committed_clean_and_says_what_it_shows(name: str) -> None:
    nb = nbformat.read(str(NOTEBOOKS / name), as_version=4)
    first = nb.cells[0]
    assert first.cell_type == "markdown"
    assert re.search(r"\*\*(about )?\d+ seconds\*\*", first.source, re.IGNORECASE)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [(c.outputs, c.execution_count) for c in code] == [([], None)] * len(code)


def test_04_a_second_client_answers_and_the_first_sees_who(run_notebook: RunNotebook) -> None:
    check_multi_client(run_clean(run_notebook, "04-multi-client.ipynb"))


def check_multi_client(run: NotebookRun) -> None:
    assert "attached to pair" in output(run, "%shard attach pair")
    answered = output(run, "second.respond_permission(")
    assert "client 2 sees: Allow edit: NOTES.md" in answered
    assert "client 2 answered: accepted" in answered
    seen = output(run, "first_view = first.widgets[0]")
    assert "client 1 saw permission_resolved: allow by 'reviewer (client 2)' (client 2)" in seen
    assert "# Notes\n\nReviewed by two clients.\n" in seen
    history = output(run, 'rest("GET", f"shard/api/agents/{AGENT_ID}/events?since=-1")')
    lines = [line.split(maxsplit=1)[1] for line in history.strip().splitlines()]
    assert lines == [
        "permission_request edit",
        "permission_resolved allow by 'reviewer (client 2)'",
        "turn_end completed",
    ]
    stopped = output(run, "gateway.terminate()")
    assert "gateway exited 0; processes left running: []" in stopped


def test_05_rules_plan_build_grant_and_headless(run_notebook: RunNotebook) -> None:
    check_permissions(run_clean(run_notebook, "05-permissions-and-modes.ipynb"))


def check_permissions(run: NotebookRun) -> None:
    rules = output(run, "!shard rules check bash")
    assert "Bash(python -m pytest:*)" in rules
    assert "Bash(rm:*)" in rules
    plan = output(run, "Plan the fix")
    assert "→ bash" not in plan
    assert "plan checkpoint:\n  1. In calc.py, change `return a - b` to `return a + b`" in plan
    offered = re.search(r"tools offered in plan mode: (\[.*\])", plan)
    assert offered is not None
    assert not {"'bash'", "'edit'", "'write'"} & set(offered.group(1).strip("[]").split(", "))
    build = output(run, "Go ahead with the plan.")
    assert "## Active Plan" in build
    assert "   allow_always by reviewer (source: client)" in build
    assert "   deny by Bash(rm:*) (source: rule)" in build
    assert "   allow by Bash(python -m pytest:*) (source: rule)" in build
    assert "2 passed" in build
    assert "return a + b" in build
    grants = output(run, "GrantStore(AGENT_ID).grants()")
    assert "grant Edit(calc.py) by reviewer" in grants
    assert "Edit(calc.py)" in grants.split("by reviewer", 1)[1]  # rules check names the grant
    headless = output(run, 'headless_policy="deny"')
    assert "   allow by Edit(calc.py) (source: grant)" in headless
    assert "   deny by headless policy: deny (source: headless)" in headless
    assert "CHANGES.md written: False" in headless


def test_06_the_summary_and_what_recall_finds_in_the_folded_part(run_notebook: RunNotebook) -> None:
    check_compaction(run_clean(run_notebook, "06-compaction-and-recall.ipynb"))


def check_compaction(run: NotebookRun) -> None:
    summary = output(run, "--dry-run")
    sections = re.findall(r"^## (.+)$", summary, re.MULTILINE)
    assert sections == [
        "Session Goal",
        "Decisions And Questions",
        "Files And Changes",
        "Type Catalog",
        "Outstanding Context",
        "Progress",
        "Earlier Turns",
        "Brief Transcript",
    ]
    assert "scope change: Actually, forget the diagram." in summary
    assert "[ERROR] [tests] pytest -q" in summary
    compacted = output(run, "| tail -n 1")
    assert "folded e00001..e00035 as compaction 0" in compacted
    assert "mentions KeyBuilder: False" in compacted
    recalled = output(run, '"KeyBuilder" --scope compaction:0')
    assert '1 entry matches "KeyBuilder" in scope compaction:0' in recalled
    assert "#5 tool_result read" in recalled
    assert "class [KeyBuilder]" in recalled
    assert "#13 tool_result id=e00013, folded by compaction:0" in recalled
    assert "hit rate: 0.82" in recalled
    agent = output(run, "async for event in agent.prompt(question)")
    assert "summary in the system prompt: True" in agent
    assert '→ recall {"query": "KeyBuilder", "scope": "compaction:0"}' in agent
    assert "defines `KeyBuilder`" in agent


CHECKS: dict[str, Callable[[NotebookRun], None]] = {
    "04-multi-client.ipynb": check_multi_client,
    "05-permissions-and-modes.ipynb": check_permissions,
    "06-compaction-and-recall.ipynb": check_compaction,
}
"""What each notebook claims, checked on an executed copy (the Binder test uses them too)."""
