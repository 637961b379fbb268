"""binder/: what Binder's build runs, in a fresh virtual environment, then every notebook there.

repo2docker installs `binder/requirements.txt` and runs `binder/postBuild` from the repository
root; this test does the same in a new venv (packages from the registry, Shard from this
checkout) and executes each notebook in `notebooks/` with that environment's `jupyter execute`,
no API key, then checks what the notebook claims to do happened (the checks of
tests/integration/notebooks/, e.g. 01's calc bug fixed by its scripted agent): a run that shows
no error but did not do its job fails here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from tests.integration.notebooks.conftest import NotebookRun
from tests.integration.notebooks.test_notebooks_advanced import CHECKS as ADVANCED_CHECKS
from tests.integration.notebooks.test_notebooks_basics import CHECKS as BASIC_CHECKS

# the first test also builds the environment (a venv, the registry's packages, Shard): minutes
# one worker runs this module: its module-scoped fixture is built once (pytest-xdist)
pytestmark = [pytest.mark.integration, pytest.mark.timeout(1800), pytest.mark.xdist_group("binder")]

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
CHECKS = {**BASIC_CHECKS, **ADVANCED_CHECKS}


def _clean_env(tmp: Path, venv: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    for name in ("OPENAI_BASE_URL", "VIRTUAL_ENV", "PYTHONPATH", "KERNEL_SHARD_MODEL"):
        env.pop(name, None)
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    for name, sub in {
        "HOME": "home",
        "SHARD_HOME": "shard-home",
        "XDG_CONFIG_HOME": "xdg",
        "JUPYTER_CONFIG_DIR": "jconfig",
        "JUPYTER_DATA_DIR": "jdata",
        "JUPYTER_RUNTIME_DIR": "jrt",
        "IPYTHONDIR": "ipython",
        "TMPDIR": "tmp",  # what a notebook puts in tempfile.mkdtemp() stays in the test's folder
    }.items():
        (tmp / sub).mkdir(parents=True, exist_ok=True)
        env[name] = str(tmp / sub)
    env["PIP_CACHE_DIR"] = os.environ.get("PIP_CACHE_DIR", str(Path.home() / ".cache" / "pip"))
    return env


@pytest.fixture(scope="module")
def binder_env(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    tmp = tmp_path_factory.mktemp("binder")
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    env = _clean_env(tmp, venv)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    steps = [
        [*pip, "-r", str(ROOT / "binder" / "requirements.txt")],
        ["bash", str(ROOT / "binder" / "postBuild")],
    ]
    for step in steps:
        done = subprocess.run(step, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"{step}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return venv, env


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
