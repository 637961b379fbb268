"""A provider that fails (here: 401 from a local fake of the OpenAI API, through the real SDK)
is exit 4, MODEL_ERROR, in `shard run` and in `shard batch` — not 1 like any other failure."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest

from shard_kernel.batch import BatchOptions, run_batch
from shard_kernel.cli import main
from shard_kernel.exit_codes import ExitCode
from tests.fixtures.fake_llm import FakeLLMServer
from tests.integration.batch.test_batch import project  # noqa: F401  (the fixture)

UNAUTHORIZED = {"error": {"status": 401, "message": "invalid api key"}}


@pytest.fixture
def srv(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLMServer]:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with FakeLLMServer() as server:
        server.push(UNAUTHORIZED)
        yield server


def test_run_exits_4_when_the_provider_fails(
    srv: FakeLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.setenv("SHARD_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    model = f"openai/gpt-test@{srv.openai_base_url}"
    assert main(["run", "--model", model, "--cwd", str(tmp_path), "hi"]) == ExitCode.MODEL_ERROR
    assert "invalid api key" in capsys.readouterr().out


def test_batch_names_the_cell_a_model_error_and_exits_4(
    srv: FakeLLMServer,
    project: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("KERNEL_SHARD_MODEL", f"openai/gpt-test@{srv.openai_base_url}")
    out = io.StringIO()
    status = run_batch(BatchOptions(notebook=project / "tasks.ipynb"), out)
    assert status == ExitCode.MODEL_ERROR == 4, out.getvalue()
    first_line = out.getvalue().splitlines()[0]
    assert first_line.startswith("cell 1/3 model error (")
    assert "invalid api key" in first_line
    executed = nbformat.read(str(project / "tasks.out.ipynb"), as_version=4)
    assert executed.cells[0].metadata["shard_batch"]["state"] == "model error"
    assert "shard_batch" not in executed.cells[1].metadata  # the run stopped there
