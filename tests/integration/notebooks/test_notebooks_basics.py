"""notebooks/01-03 run from a clean copy with no API key and show what they promise; every
notebook in notebooks/ is committed with cleared outputs and a first cell saying what it shows
and how long it takes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nbformat
import pytest

from tests.integration.notebooks.conftest import (
    NOTEBOOKS,
    RENDER,
    NotebookRun,
    copy_notebooks,
    outputs_text,
)

# one worker runs this module: its module-scoped fixture is built once (pytest-xdist)
pytestmark = pytest.mark.xdist_group("notebooks_basics")

RunNotebook = Callable[..., NotebookRun]
OWN = ("01-quickstart.ipynb", "02-magics.ipynb", "03-batch.ipynb")
DURATION = re.compile(r"\b(about|under|around|~)?\s*\d+\s*(seconds?|s|minutes?|min)\b", re.I)
WIDGET = "application/vnd.jupyter.widget-view+json"


def code_cells(nb: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [c for c in nb.cells if c.cell_type == "code"]


def cell_starting(nb: nbformat.NotebookNode, start: str) -> nbformat.NotebookNode:
    found = [c for c in code_cells(nb) if c.source.startswith(start)]
    assert len(found) == 1, f"one code cell starting {start!r}, found {len(found)}"
    return found[0]


def unittest_summary(project: Path) -> str:
    """The last line unittest prints for the project: 'OK' or 'FAILED (failures=N)'."""
    run = subprocess.run(
        [sys.executable, "-B", "-m", "unittest"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    return run.stderr.strip().splitlines()[-1]


def tool_results(cell: nbformat.NotebookNode) -> list[dict[str, Any]]:
    """The tool_result events a shard cell rendered, in order."""
    events = [o["data"][RENDER].get("event") for o in cell.outputs if RENDER in o.get("data", {})]
    return [e for e in events if e and e["type"] == "tool_result"]


def no_errors(nb: nbformat.NotebookNode) -> None:
    errors = [o for c in code_cells(nb) for o in c.outputs if o["output_type"] == "error"]
    assert errors == []
    assert "[scripted demo]" not in "\n".join(outputs_text(c) for c in code_cells(nb)), (
        "a scripted reply did not match what the tools returned"
    )


# ---------------------------------------------------------------- committed form of every notebook


def committed() -> list[Path]:
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def test_the_basic_notebooks_exist() -> None:
    assert {p.name for p in committed()} >= set(OWN)


@pytest.mark.parametrize("path", committed(), ids=lambda p: p.name)
def test_committed_with_cleared_outputs_and_an_intro(path: Path) -> None:
    nb = nbformat.read(str(path), as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.get("kernelspec", {}).get("name") in ("shard", "python3")
    dirty = [
        i
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code" and (c.outputs or c.execution_count)
    ]
    assert dirty == [], f"code cells {dirty} keep outputs or execution counts"
    assert "widgets" not in nb.metadata, "saved widget state: clear the outputs"
    assert "papermill" not in nb.metadata
    first = nb.cells[0]
    assert first.cell_type == "markdown"
    assert first.source.startswith("# "), "the first cell starts with a title"
    title, _, body = first.source.partition("\n")
    assert len(body.split()) >= 30, f"under {title!r}, a paragraph says what the notebook shows"
    assert DURATION.search(first.source), "the first cell says how long the notebook takes"


# ---------------------------------------------------------------- 01: a shard-kernel notebook


@pytest.mark.integration
def test_quickstart_fixes_the_bug(run_notebook: RunNotebook) -> None:
    check_quickstart(run_notebook("01-quickstart.ipynb"))


@pytest.mark.integration
@pytest.mark.parametrize("command", [["execute"], ["nbconvert", "--to", "notebook", "--execute"]])
def test_quickstart_through_jupyters_own_commands(
    command: list[str], notebook_env: Path, tmp_path: Path
) -> None:
    """`jupyter execute` and `jupyter nbconvert --execute`: nbclient underneath, started here as
    a user types them; the kernel applies the notebook's metadata.shard itself all the same."""
    folder = copy_notebooks(tmp_path / "notebooks")
    target = folder / "01-quickstart.ipynb"
    done = subprocess.run(
        [sys.executable, "-m", "jupyter", *command, "--inplace", str(target)],
        cwd=folder, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    executed = nbformat.read(str(target), as_version=4)
    check_quickstart(NotebookRun(folder, target, executed, 0.0, command[0]))


def check_quickstart(run: NotebookRun) -> None:
    """01: the agent ran the project's tests, read the bug, fixed it (with the notebook's rules
    and scripted replies) and the tests pass — in the run's copy only."""
    nb = run.notebook
    project = run.folder / "projects" / "01-temperature"
    assert "return celsius * 9 / 5 + 32" in (project / "temperature.py").read_text()
    assert unittest_summary(project) == "OK"
    assert unittest_summary(NOTEBOOKS / "projects" / "01-temperature") == "FAILED (failures=3)", (
        "the run changed the repository's copy of the project"
    )
    no_errors(nb)

    ask, fix, status = code_cells(nb)
    asked = tool_results(ask)
    assert [e["name"] for e in asked] == ["bash", "read"]  # ran the tests, read the code
    assert "FAILED (failures=3)" in json.dumps(asked[0]), "cell 1 shows the failing tests"
    assert "return celsius * 9 / 5 - 32" in json.dumps(asked[1]), "cell 1 shows the buggy line"
    assert "I have not changed anything yet" in outputs_text(ask)

    fixed = tool_results(fix)
    assert [e["name"] for e in fixed] == ["edit", "bash"]
    diff = [d for d in fixed[0]["result"]["render"] if d["kind"] == "diff"]
    assert diff, "the edit renders a diff"
    assert "+    return celsius * 9 / 5 + 32" in diff[0]["hunks"][0]["lines"]
    assert "Ran 4 tests" in json.dumps(fixed[1])
    assert "exit code 0" in json.dumps(fixed[1])
    assert "allowed by rule Edit(projects/01-temperature/**)" in outputs_text(fix)

    assert status.source == "/status"
    assert "scripts/01-quickstart.json" in outputs_text(status)


# ---------------------------------------------------------------- 02: %shard magics


@pytest.mark.integration
def test_magics_agent_fixes_a_copy(run_notebook: RunNotebook) -> None:
    check_magics(run_notebook("02-magics.ipynb"))


def check_magics(run: NotebookRun) -> None:
    nb = run.notebook
    no_errors(nb)
    setup = outputs_text(code_cells(nb)[0])
    work = Path(re.findall(r"project copied to (\S+)", setup)[0])
    assert work.is_relative_to(run.folder.parent), "the copy is in the run's temp folder"
    assert "return len(text.split())" in (work / "wordcount.py").read_text()
    assert unittest_summary(work) == "OK"
    assert unittest_summary(run.folder / "projects" / "02-wordcount") == "FAILED (failures=3)"

    new = outputs_text(cell_starting(nb, "%shard new --local"))
    assert "scripts/02-magics.json" in new
    assert "no Shard gateway" not in new
    prompt = cell_starting(nb, "%%shard --wait")
    assert any(WIDGET in o.get("data", {}) for o in prompt.outputs), "the live widget shows"
    assert "the turn ended" not in outputs_text(prompt)
    check = outputs_text(cell_starting(nb, "import subprocess"))
    assert "unittest: OK" in check
    assert "return len(text.split())" in check
    assert re.search(
        r"agent1: idle, build mode, .*02-magics\.json", outputs_text(code_cells(nb)[-1])
    )


# ---------------------------------------------------------------- 03: shard batch and papermill


@pytest.mark.integration
def test_batch_runs_and_reads_back(run_notebook: RunNotebook) -> None:
    check_batch(run_notebook("03-batch.ipynb"))


def check_batch(run: NotebookRun) -> None:
    nb = run.notebook
    no_errors(nb)
    runs = Path(re.findall(r"runs in (\S+)", outputs_text(code_cells(nb)[0]))[0])
    batch = outputs_text(cell_starting(nb, "command = "))
    assert "$ shard batch tasks.ipynb -o tasks.done.ipynb --policy deny" in batch
    assert "cell 1/2 ok" in batch
    assert "cell 2/2 blocked" in batch  # the commit was denied: nobody to ask, no rule for git
    assert "exit status 3" in batch

    for name, executed in [("batch", "tasks.done.ipynb"), ("papermill", "tasks.papermill.ipynb")]:
        folder = runs / name
        assert unittest_summary(folder) == "OK", f"{name}: the fix is in"
        done = nbformat.read(str(folder / executed), as_version=4)
        fix, commit = done.cells
        assert [e["name"] for e in tool_results(fix)] == ["bash", "read", "edit", "bash"]
        assert "denied by headless policy: deny" in outputs_text(commit), name
        assert "nothing to commit" not in outputs_text(commit)  # git never ran

    read_back = outputs_text(cell_starting(nb, "RENDER = "))
    assert "cell 1: Run the tests" in read_back
    assert "✓ bash (command: python -m unittest, exit code: 1)" in read_back
    assert "✓ bash (command: python -m unittest, exit code: 0)" in read_back
    assert "denied by headless policy: deny" in read_back
    diff = outputs_text(cell_starting(nb, "import difflib"))
    assert "+    updated[item] = updated.get(item, 0) + amount" in diff
    assert "unittest: OK" in diff
    papermill = outputs_text(cell_starting(nb, "import papermill"))
    assert papermill.count("cell ") >= 2
    assert "denied by headless policy: deny" in papermill


CHECKS: dict[str, Callable[[NotebookRun], None]] = {
    "01-quickstart.ipynb": check_quickstart,
    "02-magics.ipynb": check_magics,
    "03-batch.ipynb": check_batch,
}
"""What each notebook claims, checked on an executed copy (the Binder test uses them too)."""
