"""nbclient batch runs of a shard notebook: headless policy, outputs kept, denied writes absent."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from shard_kernel.batch import BatchOptions, run_batch
from shard_kernel.exit_codes import ExitCode
from shard_kernel.kernelspec import spec_source

RENDER = "application/vnd.shard.render+json"
STEPS = [
    {"text": "Listing.", "tool_calls": [{"name": "ls", "input": {"path": "."}}]},
    {"text": "There is a notes file."},
    {"tool_calls": [{"name": "write", "input": {"path": "secret.txt", "content": "x"}}]},
    {"text": "The write was denied."},
    {"text": "Third cell answered."},
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_CONFIG_DIR", "IPYTHONDIR"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    monkeypatch.setenv("SHARD_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    shutil.copytree(spec_source(), tmp_path / "jupyter_data_dir" / "kernels" / "shard")
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("remember the milk\n")
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"name": "batch", "steps": STEPS}))
    monkeypatch.setenv("KERNEL_SHARD_MODEL", f"scripted/{script}")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "shard", "display_name": "Shard", "language": "shard"}
    nb.cells = [
        nbformat.v4.new_code_cell("What files are here?"),
        nbformat.v4.new_code_cell("Write secret.txt"),
        nbformat.v4.new_code_cell("Say something"),
    ]
    nbformat.write(nb, str(work / "tasks.ipynb"))
    return work


def test_three_cells_unattended_and_the_denied_one_is_blocked(project: Path) -> None:
    out = io.StringIO()
    status = run_batch(BatchOptions(notebook=project / "tasks.ipynb"), out)
    assert status == ExitCode.BLOCKED == 3, out.getvalue()
    executed = nbformat.read(str(project / "tasks.out.ipynb"), as_version=4)
    nbformat.validate(executed)
    first, second, third = executed.cells
    assert any(RENDER in o.get("data", {}) for o in first.outputs)
    denied = [o for o in second.outputs if RENDER in o.get("data", {})]
    assert any("deny" in json.dumps(o["data"][RENDER]) for o in denied)
    assert not (project / "secret.txt").exists()
    assert any(
        "Third cell answered." in o.get("data", {}).get("text/plain", "") for o in third.outputs
    )
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("cell 1/3 ok (")
    assert lines[1].startswith("cell 2/3 blocked (")
    assert lines[1].endswith(
        "s): write was denied: no one to ask (headless policy: deny); nothing changed after it"
    )
    assert lines[2].startswith("cell 3/3 ok (")
    assert [c.metadata["shard_batch"]["state"] for c in executed.cells] == ["ok", "blocked", "ok"]
    assert second.outputs[-1]["text"].startswith("shard batch: blocked: write was denied")


def test_allowed_work_is_not_blocked(project: Path) -> None:
    out = io.StringIO()
    opts = BatchOptions(notebook=project / "tasks.ipynb", allow=["Write(secret.txt)"])
    assert run_batch(opts, out) == ExitCode.OK, out.getvalue()
    assert (project / "secret.txt").exists()


def test_cli_exit_code_and_nbconvert(project: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "shard_kernel.cli", "batch", str(project / "tasks.ipynb"), "-o",
         str(project / "cli.ipynb")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 3, result.stderr  # the write is denied: blocked
    # no "Kernel is running over TCP without encryption", no "Parent appears to have exited"
    assert result.stderr == ""
    assert (project / "cli.ipynb").exists()
    converted = subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute",
         "--output", "nbconvert.ipynb", str(project / "tasks.ipynb")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert converted.returncode == 0, converted.stderr[-2000:]
    nbformat.validate(nbformat.read(str(project / "nbconvert.ipynb"), as_version=4))


def test_not_a_shard_notebook_is_a_clear_error(project: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    nbformat.write(nb, str(project / "py.ipynb"))
    result = subprocess.run(
        [sys.executable, "-m", "shard_kernel.cli", "batch", str(project / "py.ipynb")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == ExitCode.BAD_INPUT
    assert "uses kernel 'python3'" in result.stderr
    assert "Traceback" not in result.stderr
