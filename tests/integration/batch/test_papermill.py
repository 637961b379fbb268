"""papermill runs a shard notebook: cells are prompts, Shard's render outputs land in the output."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
import papermill
import pytest

from shard_kernel.kernelspec import spec_source

# one worker runs this module: its module-scoped fixture is built once (pytest-xdist)
pytestmark = pytest.mark.xdist_group("papermill")

RENDER = "application/vnd.shard.render+json"
STEPS = [
    {"text": "Listing.", "tool_calls": [{"name": "ls", "input": {"path": "."}}]},
    {"text": "There is a notes file."},
    {"tool_calls": [{"name": "write", "input": {"path": "secret.txt", "content": "x"}}]},
    {"text": "The write was denied."},
    {"text": "Third cell answered."},
]


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, nbformat.NotebookNode]:
    """One papermill run for the module: temp Jupyter dirs with the shard spec, a scripted model,
    a 3-cell shard notebook; returns the workspace and the executed notebook."""
    root = tmp_path_factory.mktemp("papermill")
    work = root / "work"
    work.mkdir()
    (work / "notes.txt").write_text("remember the milk\n")
    script = root / "script.json"
    script.write_text(json.dumps({"name": "papermill", "steps": STEPS}))
    shutil.copytree(spec_source(), root / "jupyter_data_dir" / "kernels" / "shard")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "shard", "display_name": "Shard", "language": "shard"}
    nb.cells = [
        nbformat.v4.new_code_cell("What files are here?"),
        nbformat.v4.new_code_cell("Write secret.txt"),
        nbformat.v4.new_code_cell("Say something"),
    ]
    nbformat.write(nb, str(work / "tasks.ipynb"))
    with pytest.MonkeyPatch.context() as env:
        for name in ("JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_CONFIG_DIR", "IPYTHONDIR"):
            env.setenv(name, str(root / name.lower()))
        env.setenv("SHARD_HOME", str(root / "home"))
        env.setenv("XDG_CONFIG_HOME", str(root / "xdg"))
        env.setenv("JUPYTER_PLATFORM_DIRS", "1")
        env.setenv("KERNEL_SHARD_AGENT_ID", "agent-papermill")
        env.setenv("KERNEL_SHARD_MODEL", f"scripted/{script}")
        env.delenv("ANTHROPIC_API_KEY", raising=False)
        env.delenv("OPENAI_API_KEY", raising=False)
        papermill.execute_notebook(
            str(work / "tasks.ipynb"),
            str(work / "tasks.out.ipynb"),
            kernel_name="shard",
            cwd=str(work),  # the kernel's cwd is the agent's workspace
            progress_bar=False,
        )
    return work, nbformat.read(str(work / "tasks.out.ipynb"), as_version=4)


def renders(cell: nbformat.NotebookNode) -> list[dict[str, object]]:
    return [o["data"][RENDER] for o in cell.outputs if RENDER in o.get("data", {})]


def test_papermill_keeps_shard_outputs(executed: tuple[Path, nbformat.NotebookNode]) -> None:
    work, nb = executed
    nbformat.validate(nb)
    assert nb.metadata["papermill"]["exception"] is None
    assert [c.metadata["papermill"]["status"] for c in nb.cells] == ["completed"] * 3
    first, second, third = nb.cells
    assert any("notes.txt" in json.dumps(r) for r in renders(first)), first.outputs
    assert any("deny" in json.dumps(r) for r in renders(second)), second.outputs
    assert not (work / "secret.txt").exists()
    answers = [o["data"].get("text/plain", "") for o in third.outputs if "data" in o]
    assert any("Third cell answered." in text for text in answers), third.outputs
    assert not [o for c in nb.cells for o in c.outputs if o["output_type"] == "error"]


def test_execution_counts_follow_the_cells(executed: tuple[Path, nbformat.NotebookNode]) -> None:
    assert [c.execution_count for c in executed[1].cells] == [1, 2, 3]
