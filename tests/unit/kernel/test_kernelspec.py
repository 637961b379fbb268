"""install_kernelspec: installing the spec where it already is keeps it (a wheel install)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from shard_kernel import kernelspec


def test_installing_over_the_installed_spec_keeps_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    installed = tmp_path / "share" / "jupyter" / "kernels" / "shard"
    shutil.copytree(kernelspec.spec_source(), installed)  # what the wheel's data files put there
    monkeypatch.setattr(kernelspec, "spec_source", lambda: installed)
    where = kernelspec.install_kernelspec(prefix=str(tmp_path))
    assert Path(where).resolve() == installed.resolve()
    assert json.loads((installed / "kernel.json").read_text())["display_name"] == "Shard"


def test_a_missing_spec_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kernelspec, "spec_source", lambda: tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match="no kernelspec at"):
        kernelspec.install_kernelspec(prefix=str(tmp_path))
