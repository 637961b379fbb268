"""Which notebook a kernel runs, from what each runner gives it, and its settings applied."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from shard_kernel.agent_env import read_agent_env
from shard_kernel.own_notebook import find_own_notebook

LOG = logging.getLogger("test-own-notebook")
RULES = {"allow": ["Edit(src/**)"], "mode": "plan"}


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "KERNEL_SHARD_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))  # no config.json


def notebook(path: Path, first: str, shard: dict[str, Any] | None, kernel: str = "shard") -> Path:
    metadata: dict[str, Any] = {"kernelspec": {"name": kernel}}
    if shard is not None:
        metadata["shard"] = shard
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# title"]},
        {"cell_type": "code", "metadata": {}, "source": ["  \n"], "outputs": []},  # skipped
        {"cell_type": "code", "metadata": {}, "source": [first], "outputs": []},
    ]
    doc = {"nbformat": 4, "nbformat_minor": 5, "metadata": metadata, "cells": cells}
    path.write_text(json.dumps(doc))
    return path


def test_nbclient_runs_are_told_apart_by_their_first_cell(tmp_path: Path) -> None:
    mine = notebook(tmp_path / "a.ipynb", "Fix the bug.", RULES)
    notebook(tmp_path / "b.ipynb", "Explain the code.", None)
    notebook(tmp_path / "c.ipynb", "Fix the bug.", {"mode": "build"}, kernel="python3")
    own = find_own_notebook({}, tmp_path)
    assert own.waits_for_first_cell  # nothing named it: only its first cell can
    own.pick_by_first_cell("Fix the bug.\n")
    assert (own.path, own.note) == (mine, None)
    env = own.agent_env(read_agent_env({"KERNEL_SHARD_AGENT_ID": "agent-x"}), {}, LOG)
    assert (env.allow, env.mode, env.cwd) == (("Edit(src/**)",), "plan", tmp_path.resolve())
    assert env.rules_from == "notebook metadata of a.ipynb"

    other = find_own_notebook({}, tmp_path)
    other.pick_by_first_cell("Explain the code.")  # b.ipynb: no settings of its own
    assert other.agent_env(read_agent_env({}), {}, LOG).allow == ()


def test_notebooks_that_start_alike_but_differ_apply_nothing_and_say_so(tmp_path: Path) -> None:
    notebook(tmp_path / "a.ipynb", "/status", RULES)
    notebook(tmp_path / "b.ipynb", "/status", None)
    notebook(tmp_path / "a-copy.ipynb", "/status", RULES)
    own = find_own_notebook({}, tmp_path)
    own.pick_by_first_cell("/status")
    assert own.path is None
    assert own.note is not None
    assert "a-copy.ipynb, a.ipynb, b.ipynb" in own.note
    assert "KERNEL_SHARD_NOTEBOOK" in own.note


def test_copies_with_the_same_settings_agree(tmp_path: Path) -> None:
    notebook(tmp_path / "a.ipynb", "/status", RULES)
    notebook(tmp_path / "a.out.ipynb", "/status", RULES)  # papermill's output beside its input
    own = find_own_notebook({}, tmp_path)
    own.pick_by_first_cell("/status")
    assert own.path is not None
    assert own.note is None


def test_a_folder_whose_notebooks_say_nothing_does_not_wait(tmp_path: Path) -> None:
    notebook(tmp_path / "a.ipynb", "hi", None)
    assert not find_own_notebook({}, tmp_path).waits_for_first_cell
    assert not find_own_notebook({}, tmp_path / "missing").waits_for_first_cell


def test_a_named_notebook_needs_no_first_cell(tmp_path: Path) -> None:
    mine = notebook(tmp_path / "a.ipynb", "hi", RULES)
    named = find_own_notebook({"KERNEL_SHARD_NOTEBOOK": "a.ipynb"}, tmp_path)
    assert (named.path, named.waits_for_first_cell) == (mine, False)
    session = find_own_notebook({"JPY_SESSION_NAME": str(mine)}, tmp_path)
    assert session.path == mine
    api_path = find_own_notebook({"JPY_SESSION_NAME": "work/a.ipynb"}, tmp_path)
    assert api_path.path == mine  # the server's API path: its last part is in this folder


def test_an_inherited_session_name_is_not_this_kernels(tmp_path: Path) -> None:
    """papermill in a Python notebook's cell: the Shard kernel inherits the caller's name."""
    caller = notebook(tmp_path / "caller.ipynb", "import papermill", None, kernel="python3")
    work = tmp_path / "work"
    work.mkdir()
    mine = notebook(work / "tasks.ipynb", "Fix it.", RULES)
    elsewhere = notebook(tmp_path / "shard-elsewhere.ipynb", "Fix it.", {"mode": "build"})
    for inherited in (caller, elsewhere):
        own = find_own_notebook({"JPY_SESSION_NAME": str(inherited)}, work)
        assert own.path is None
        own.pick_by_first_cell("Fix it.")
        assert own.path == mine


def test_a_named_agent_was_configured_by_who_named_it(tmp_path: Path) -> None:
    mine = notebook(tmp_path / "a.ipynb", "hi", RULES)
    env = {"KERNEL_SHARD_AGENT_ID": "agent-gw", "JPY_SESSION_NAME": str(mine)}
    own = find_own_notebook(env, tmp_path)
    assert (own.path, own.waits_for_first_cell) == (None, False)


def test_the_notebooks_settings_are_more_specific_than_the_inherited_variables(
    tmp_path: Path,
) -> None:
    """As for a kernel the gateway adopts: KERNEL_SHARD_* are defaults, the notebook decides."""
    (tmp_path / "s.json").write_text("{}")
    mine = notebook(tmp_path / "a.ipynb", "hi", {"model": "scripted/s.json", "mode": "plan"})
    own = find_own_notebook({"KERNEL_SHARD_NOTEBOOK": str(mine)}, tmp_path)
    given = {"KERNEL_SHARD_MODEL": "scripted/other.json", "KERNEL_SHARD_DENY": "Bash(rm:*)"}
    env = own.agent_env(read_agent_env(given), given, LOG)
    assert env.model == f"scripted/{(tmp_path / 's.json').resolve()}"
    assert (env.mode, env.deny) == ("plan", ("Bash(rm:*)",))  # what it leaves unsaid stays
    keyed = own.agent_env(read_agent_env(given), {**given, "ANTHROPIC_API_KEY": "k"}, LOG)
    assert keyed.model == "scripted/other.json"  # a configured model: the script gives way
