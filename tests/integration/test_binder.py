"""binder/: what Binder's build runs, in a fresh virtual environment, then every notebook there.

repo2docker installs `binder/requirements.txt` and runs `binder/postBuild` from the repository
root; this test does the same in a new venv (packages from the registry, Shard from this
checkout; tests/fixtures/binder.py keeps it while the checkout's build inputs are unchanged)
and executes each notebook in `notebooks/` with that environment's `jupyter execute`, no API
key, then checks what the notebook claims to do happened (the checks of
tests/integration/notebooks/, e.g. 01's calc bug fixed by its scripted agent): a run that shows
no error but did not do its job fails here.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest

from tests.fixtures.binder import binder_venv, build_env
from tests.integration.notebooks.conftest import NotebookRun
from tests.integration.notebooks.test_notebooks_advanced import CHECKS as ADVANCED_CHECKS
from tests.integration.notebooks.test_notebooks_basics import CHECKS as BASIC_CHECKS

# the first test may build the environment (a venv, the registry's packages, Shard): minutes
# one worker runs this module: its module-scoped fixture is built once (pytest-xdist)
pytestmark = [pytest.mark.integration, pytest.mark.timeout(1800), pytest.mark.xdist_group("binder")]

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
CHECKS = {**BASIC_CHECKS, **ADVANCED_CHECKS}


@pytest.fixture(scope="module")
def binder_env(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The venv Binder's build makes (tests/fixtures/binder.py: built from this checkout, kept
    while its inputs are unchanged), with a HOME, SHARD_HOME and Jupyter dirs of this module's."""
    tmp = tmp_path_factory.mktemp("binder")
    venv = binder_venv(tmp / "venv")
    assert isinstance(venv, Path), venv
    return venv, build_env(venv, tmp)


def test_the_binder_build_installs_shard_with_its_kernel_and_lab_extension(
    binder_env: tuple[Path, dict[str, str]],
) -> None:
    venv, env = binder_env
    specs = subprocess.run(
        [str(venv / "bin" / "jupyter"), "kernelspec", "list"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert str(venv) in next(line for line in specs.stdout.splitlines() if " shard " in f" {line} ")
    listed = subprocess.run(
        [str(venv / "bin" / "jupyter"), "labextension", "list"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert "shard-jupyterlab" in listed.stdout + listed.stderr
    version = subprocess.run(
        [str(venv / "bin" / "shard"), "--version"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert version.stdout.strip(), "shard --version printed nothing"


def test_every_notebook_has_its_checks() -> None:
    assert sorted(CHECKS) == [n.name for n in NOTEBOOKS]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[n.stem for n in NOTEBOOKS])
def test_every_notebook_does_its_job_in_the_binder_environment(
    binder_env: tuple[Path, dict[str, str]], notebook: Path, tmp_path: Path
) -> None:
    venv, env = binder_env
    env = {**env, "TMPDIR": str(tmp_path / "tmp")}
    (tmp_path / "tmp").mkdir()
    work = tmp_path / "notebooks"
    shutil.copytree(ROOT / "notebooks", work)
    target = work / notebook.name
    done = subprocess.run(
        [str(venv / "bin" / "jupyter"), "execute", "--inplace", "--timeout=600", str(target)],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    executed = nbformat.read(target, as_version=4)
    errors = [
        output
        for cell in executed.cells
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]
    assert errors == []
    CHECKS[notebook.name](NotebookRun(work, target, executed, 0.0, "jupyter execute"))
