"""A real `shard` kernel finds the notebook it runs and applies its `metadata.shard`: named by
jupyter_server's JPY_SESSION_NAME (Lab without Shard's extension), or told apart by its first
cell when notebooks of its folder start alike but say different things (then nothing applies,
and the first cell says so)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.manager import KernelManager

from shard_core.providers.models import FIRST_CONTACT


def notebook(path: Path, first: str, shard: dict[str, Any]) -> Path:
    cell = {"cell_type": "code", "metadata": {}, "source": first, "outputs": []}
    metadata = {"kernelspec": {"name": "shard", "display_name": "Shard"}, "shard": shard}
    doc = {"nbformat": 4, "nbformat_minor": 5, "metadata": metadata, "cells": [cell]}
    path.write_text(json.dumps(doc))
    return path


@pytest.fixture
def run_cell(jupyter_dirs: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """`run_cell(folder, code, **env)`: a kernel started in `folder` as a runner starts it (no
    agent id), the cell's reply status and the text of its outputs."""
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    for name in [n for n in os.environ if n.startswith("KERNEL_SHARD_") or n == "JPY_SESSION_NAME"]:
        monkeypatch.delenv(name)
    managers: list[KernelManager] = []

    def run(folder: Path, code: str, **env: str) -> tuple[str, str]:
        km = KernelManager(kernel_name="shard")
        km.start_kernel(cwd=str(folder), env={**os.environ, **env})
        managers.append(km)
        kc = km.client()
        kc.start_channels()
        try:
            kc.wait_for_ready(timeout=60)
            texts: list[str] = []
            reply = kc.execute_interactive(code, timeout=60, output_hook=lambda m: texts.append(
                json.dumps(m["content"], ensure_ascii=False)))  # fmt: skip
            return reply["content"]["status"], "\n".join(texts)
        finally:
            kc.stop_channels()

    yield run
    for km in managers:
        km.shutdown_kernel(now=True)


def test_a_lab_session_kernel_reads_its_notebook(run_cell: Any, tmp_path: Path) -> None:
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "replies.json").write_text(json.dumps({"name": "t", "steps": [{"text": "hi"}]}))
    mine = notebook(folder / "mine.ipynb", "/status", {"model": "scripted/replies.json",
                                                       "mode": "plan"})  # fmt: skip
    status, text = run_cell(folder, "/status", JPY_SESSION_NAME=str(mine))
    assert status == "ok"
    assert str(folder / "replies.json") in text  # the notebook's script, relative to it
    assert "plan" in text


def test_alike_notebooks_with_different_settings_apply_none_and_say_so(
    run_cell: Any, tmp_path: Path
) -> None:
    folder = tmp_path / "work"
    folder.mkdir()
    notebook(folder / "a.ipynb", "hello", {"model": "scripted/demo"})
    notebook(folder / "b.ipynb", "hello", {"mode": "plan"})
    status, text = run_cell(folder, "hello")  # as nbclient sends it: no cell id, no metadata
    assert status == "error"
    assert "the notebooks a.ipynb, b.ipynb all start with this cell" in text
    assert "KERNEL_SHARD_NOTEBOOK" in text
    assert FIRST_CONTACT in text  # neither notebook's model was taken, and none is configured
