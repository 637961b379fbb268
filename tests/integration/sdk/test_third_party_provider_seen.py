"""A third-party provider is seen wherever a bundled one is, before any agent exists: the
gateway's check of `agent_create`'s model and the default model it shows, a notebook's
offline script (a configured key wins over it), `shard demo`'s choice of its own script, and
`shard batch`'s model check. `tests/fixtures/acme_provider.py` is copied into
`SHARD_HOME/extensions/` (loaded the way a user's extension is); each check fails for the
same model when the file is not there.
"""

from __future__ import annotations

import io
import json
import logging
import os
import shutil
from pathlib import Path

import nbformat
import pytest

from shard_core.engine.config import ShardConfig
from shard_core.providers.models import DEMO_MODEL, NO_MODEL
from shard_core.types.errors import ConfigError
from shard_kernel.agent_defaults import default_model
from shard_kernel.batch import BatchOptions, run_batch
from shard_kernel.commands.demo import offline_model
from shard_kernel.exit_codes import ExitCode
from shard_kernel.gateway.validation import BadRequestError, parse_create
from shard_kernel.kernelspec import spec_source
from shard_kernel.notebook_settings import notebook_settings
from tests.fixtures import acme_provider

LOG = logging.getLogger("test.third_party")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A SHARD_HOME with no extension yet (`with_acme` adds the provider), no key set."""
    home = tmp_path / "home"
    (home / "extensions").mkdir(parents=True)
    for name in [n for n in os.environ if n.endswith("_API_KEY")] + ["OPENAI_BASE_URL"]:
        monkeypatch.delenv(name, raising=False)
    for name in ("KERNEL_SHARD_MODEL", "SHARD_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SHARD_HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    return home


def with_acme(home: Path) -> None:
    shutil.copy(acme_provider.__file__, home / "extensions" / "acme.py")


def create(home: Path, model: str) -> str | None:
    work = home.parent / "work"
    work.mkdir(exist_ok=True)
    return parse_create({"cwd": str(work), "model": model}).model


def test_the_gateway_accepts_its_model_and_shows_it_as_the_default(home: Path) -> None:
    with pytest.raises(BadRequestError, match="unknown provider 'acme'"):
        create(home, "acme/acme-large")
    assert default_model({"ACME_API_KEY": "k"}, ShardConfig()).model == NO_MODEL
    with_acme(home)
    assert create(home, "acme/acme-large") == "acme/acme-large"
    chosen = default_model({"ACME_API_KEY": "k"}, ShardConfig())
    assert (chosen.model, chosen.source) == ("acme/acme-large", "provider")


def test_its_key_outranks_a_notebook_s_offline_script(home: Path) -> None:
    notebook = home.parent / "nb.ipynb"
    document = nbformat.v4.new_notebook()
    document.metadata["shard"] = {"model": "scripted/demo"}
    nbformat.write(document, str(notebook))
    keyed = {"ACME_API_KEY": "k"}
    assert notebook_settings(notebook, keyed, LOG)["model"] == "scripted/demo"  # not seen yet
    with_acme(home)
    assert "model" not in notebook_settings(notebook, keyed, LOG)  # a model is configured
    assert notebook_settings(notebook, {}, LOG)["model"] == "scripted/demo"  # offline: the script


def test_shard_demo_plays_its_script_only_without_the_key(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACME_API_KEY", "k")
    assert offline_model() == DEMO_MODEL  # the extension is not there: nothing is configured
    with_acme(home)
    assert offline_model() is None  # the kernel takes the configured model: acme's
    monkeypatch.delenv("ACME_API_KEY")
    assert offline_model() == DEMO_MODEL


def test_shard_batch_runs_a_notebook_on_it(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_CONFIG_DIR", "IPYTHONDIR"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    shutil.copytree(spec_source(), tmp_path / "jupyter_data_dir" / "kernels" / "shard")
    work = tmp_path / "work"
    work.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "shard", "display_name": "Shard", "language": "shard"}
    nb.metadata["shard"] = {"model": "acme/acme-large"}
    nb.cells = [nbformat.v4.new_code_cell("Say hello")]
    nbformat.write(nb, str(work / "hello.ipynb"))
    with pytest.raises(ConfigError, match="unknown provider 'acme'"):
        run_batch(BatchOptions(notebook=work / "hello.ipynb"), io.StringIO())
    with_acme(home)
    out = io.StringIO()
    assert run_batch(BatchOptions(notebook=work / "hello.ipynb"), out) == ExitCode.OK, out
    [cell] = nbformat.read(str(work / "hello.out.ipynb"), as_version=4).cells
    assert "acme acme-large answers" in json.dumps(cell.outputs)
