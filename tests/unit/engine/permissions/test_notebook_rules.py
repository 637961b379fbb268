"""Notebook tools under the gate: PythonExec / NotebookRun rules, notebook edits as path writes."""

from __future__ import annotations

import pytest

from shard_core.engine.permissions import explain, parse_rule
from tests.unit.engine.permissions._support import rules

NONE = rules()


@pytest.mark.parametrize(
    ("text", "tool"),
    [("PythonExec", "python_exec"), ("NotebookRun", "notebook_run"), ("python_exec", "python_exec"),
     ("KernelRestart", "kernel_restart"), ("LS", "ls"), ("Bash", "bash")],
)  # fmt: skip
def test_camel_case_rules_name_the_snake_case_tool(text: str, tool: str) -> None:
    assert parse_rule(text).tool == tool


@pytest.mark.parametrize("tool", ["python_exec", "notebook_run", "kernel_restart"])
def test_running_code_asks_by_default(query, tool: str) -> None:
    found = explain(query(tool, read_only=False, code="1", path="a.ipynb"), NONE)

    assert found.decision == "ask"
    assert found.suggested_rule is not None


def test_a_python_exec_rule_allows_and_a_deny_wins(query) -> None:
    call = query("python_exec", read_only=False, code="import os")

    assert explain(call, rules(allow=("PythonExec",))).decision == "allow"
    assert explain(call, rules(allow=("PythonExec",), deny=("python_exec",))).decision == "deny"
    assert explain(call, rules(allow=("NotebookRun",))).decision == "ask"


def test_a_notebook_edit_is_a_write_of_that_path(query) -> None:
    call = query("notebook_edit", read_only=False, path="analysis.ipynb", operations=[])

    assert explain(call, NONE).decision == "ask"
    assert explain(call, rules(allow=("Edit(**/*.ipynb)",))).decision == "allow"
    assert explain(call, rules(allow=("NotebookEdit(analysis.ipynb)",))).decision == "allow"
    assert explain(call, rules(allow=("Edit(other.ipynb)",))).decision == "ask"
    assert explain(call, rules(allow=("Edit(**)",), deny=("Edit(*.ipynb)",))).decision == "deny"


def test_notebook_read_is_a_read_outside_the_workspace_asks(query) -> None:
    inside = query("notebook_read", read_only=True, path="a.ipynb")
    outside = query("notebook_read", read_only=True, path="../elsewhere/a.ipynb")

    assert explain(inside, NONE).decision == "allow"
    assert explain(outside, NONE).decision == "ask"
    assert explain(inside, rules(deny=("Read(a.ipynb)",))).decision == "deny"
