"""Run the notebooks in notebooks/ as CI does: a clean copy in a temp folder, executed by plain
nbclient and by papermill, each notebook once per runner (the module-scoped `run_notebook`
fixture is parametrized by runner, so every test that uses it runs for both).

Each run gets its own temp Jupyter, IPython, SHARD_HOME and XDG config folders with the `shard`
kernelspec installed in the temp data dir, no API key or gateway in the environment (so every
model is scripted) and this interpreter's bin folder first on PATH. The whole notebooks/ folder is
copied, so a notebook finds its scripts/ and projects/ next to it, and its kernel starts in the
copy (the runner's working folder is the notebook's, as in JupyterLab).

Nothing here hands a `shard`-kernel notebook its `metadata.shard`: the kernel finds its notebook
and reads it itself (shard_kernel/own_notebook.py), as it must for any user's runner.

    def test_quickstart(run_notebook):
        run = run_notebook("01-quickstart.ipynb")
        run.notebook.cells, run.folder / "projects", run.seconds, run.runner
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from shard_kernel.kernelspec import spec_source

NOTEBOOKS = Path(__file__).resolve().parents[3] / "notebooks"
RUNNERS = ("nbclient", "papermill")
RENDER = "application/vnd.shard.render+json"
STRIPPED = ("OPENAI_BASE_URL", "SHARD_GATEWAY_URL", "SHARD_GATEWAY_TOKEN", "JPY_SESSION_NAME")
TEMP_DIRS = [
    ("JUPYTER_DATA_DIR", "jupyter-data"),
    ("JUPYTER_RUNTIME_DIR", "jupyter-runtime"),
    ("JUPYTER_CONFIG_DIR", "jupyter-config"),
    ("IPYTHONDIR", "ipython"),
    ("SHARD_HOME", "shard-home"),
    ("XDG_CONFIG_HOME", "xdg-config"),
    ("TMPDIR", "tmp"),  # what a notebook puts in tempfile.mkdtemp() stays in the test's folder
]


@dataclass
class NotebookRun:
    folder: Path  # the temp copy of notebooks/ the notebook ran in
    path: Path  # the executed notebook, written beside the copy (`<stem>.out.ipynb`)
    notebook: nbformat.NotebookNode
    seconds: float
    runner: str = "nbclient"


def isolate(root: Path, env: pytest.MonkeyPatch) -> None:
    """Temp Jupyter, Shard and TMPDIR folders under `root`, the shard spec installed, no keys."""
    for name, sub in TEMP_DIRS:
        (root / sub).mkdir(parents=True, exist_ok=True)
        env.setenv(name, str(root / sub))
    env.setenv("JUPYTER_PLATFORM_DIRS", "1")
    for name in list(os.environ):
        if name.endswith("_API_KEY") or name in STRIPPED or name.startswith("KERNEL_SHARD_"):
            env.delenv(name)
    env.setenv("PATH", os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))
    shutil.copytree(spec_source(), root / "jupyter-data" / "kernels" / "shard", dirs_exist_ok=True)


@pytest.fixture
def notebook_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's process isolated as `isolate` says; returns the folder holding the temp dirs."""
    isolate(tmp_path / "env", monkeypatch)
    return tmp_path / "env"


def copy_notebooks(target: Path) -> Path:
    """A clean copy of notebooks/ (no checkpoints, no earlier outputs) at `target`."""
    ignore = shutil.ignore_patterns(".ipynb_checkpoints", "*.out.ipynb", "__pycache__", ".*cache")
    shutil.copytree(NOTEBOOKS, target, ignore=ignore)
    return target


def execute(path: Path, *, runner: str = "nbclient", timeout: float = 600) -> NotebookRun:
    """Execute the notebook at `path` with `runner` (in the current environment, the notebook's
    folder as the working one) and write the result to `<stem>.out.ipynb`; a failing cell
    raises (nbclient's CellExecutionError, papermill's PapermillExecutionError)."""
    out = path.with_name(path.stem + ".out.ipynb")
    started = time.monotonic()
    if runner == "papermill":
        import papermill

        papermill.execute_notebook(  # writes `out` as it goes, also when a cell fails
            str(path), str(out), cwd=str(path.parent), progress_bar=False,
            execution_timeout=int(timeout),
        )  # fmt: skip
        nb = nbformat.read(str(out), as_version=4)
        return NotebookRun(path.parent, out, nb, time.monotonic() - started, runner)
    nb = nbformat.read(str(path), as_version=4)
    kernel = nb.metadata.get("kernelspec", {}).get("name", "python3")
    client = NotebookClient(
        nb,
        kernel_name=kernel,
        timeout=int(timeout),
        resources={"metadata": {"path": str(path.parent)}},
    )
    try:
        client.execute()
    finally:
        nbformat.write(nb, str(out))
    return NotebookRun(path.parent, out, nb, time.monotonic() - started, runner)


def descendants() -> list[int]:
    """Pids of every live process below this one (Linux /proc), zombies excluded."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z":
            parents[int(stat.parent.name)] = int(fields[1])
    found: list[int] = []
    frontier = [os.getpid()]
    while frontier:
        pid = frontier.pop()
        children = [child for child, parent in parents.items() if parent == pid]
        found += children
        frontier += children
    return found


def assert_no_process_left(within: float = 10.0) -> None:
    deadline = time.monotonic() + within
    while (left := descendants()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, f"processes outlived the notebook run: {left}"


@pytest.fixture(scope="module", params=RUNNERS)
def run_notebook(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[..., NotebookRun]]:
    """`run_notebook("01-quickstart.ipynb")`: a fresh copy of notebooks/ in its own isolated
    environment, executed by this parameter's runner once per module (later calls with the same
    name return that run), checked to leave no process behind."""
    runner: str = request.param
    runs: dict[str, NotebookRun] = {}

    def run(name: str, *, timeout: float = 600) -> NotebookRun:
        if name not in runs:
            root = tmp_path_factory.mktemp(f"{Path(name).stem}-{runner}")
            folder = copy_notebooks(root / "notebooks")
            with pytest.MonkeyPatch.context() as env:
                isolate(root / "env", env)
                runs[name] = execute(folder / name, runner=runner, timeout=timeout)
            assert_no_process_left()
        return runs[name]

    yield run
    assert_no_process_left()


def outputs_text(cell: nbformat.NotebookNode) -> str:
    """Everything a cell printed or displayed as text: streams, text/plain, text/markdown, the
    JSON of Shard's render outputs, error tracebacks. Consecutive stream outputs of one name
    are one text, as Jupyter shows them: where the kernel flushed between two writes of one
    `print` (its IOPub flush interval, under load) is no line break."""
    parts: list[str] = []
    stream: str | None = None
    for output in cell.get("outputs", []):
        kind = output["output_type"]
        if kind == "stream" and stream == output.get("name"):
            parts[-1] += output["text"]
            continue
        stream = output.get("name") if kind == "stream" else None
        if kind == "stream":
            parts.append(output["text"])
        elif kind == "error":
            parts.append("\n".join(output["traceback"]))
        else:
            data = output.get("data", {})
            parts += [str(data.get(k, "")) for k in ("text/plain", "text/markdown")]
            if RENDER in data:
                parts.append(json.dumps(data[RENDER]))
    return "\n".join(parts)
