"""A notebook's review is per cell: the source's diff, and the outputs summarised by kind (an
image or a table named by its MIME type, never inlined); the wire review carries the same."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from shard_core.capabilities.checkpoints.review import review_file, wire
from shard_core.capabilities.checkpoints.rewind import Version
from shard_core.capabilities.checkpoints.store import BlobStore


def _nb(cells: list[dict[str, Any]]) -> bytes:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}).encode()


def _code(cid: str, source: str, outputs: list[dict[str, Any]]) -> dict[str, Any]:
    return {"cell_type": "code", "id": cid, "source": source, "metadata": {}, "outputs": outputs,
            "execution_count": None}  # fmt: skip


def test_a_cells_outputs_are_summarised_not_inlined(tmp_path: Path) -> None:
    blobs = BlobStore(tmp_path / "store")
    png = {
        "output_type": "display_data",
        "data": {"image/png": "iVBORw0KGgo" * 500},
        "metadata": {},
    }
    error = {"output_type": "error", "ename": "ZeroDivisionError", "evalue": "x", "traceback": []}
    stream = {"output_type": "stream", "name": "stdout", "text": "hi\n"}
    old = _nb([_code("a", "plot()", []), _code("b", "1/0", [stream]), _code("c", "x = 1", [])])
    new = _nb([_code("a", "plot(x)", [png]), _code("b", "1/0", [error])])
    before = Version(True, blobs.put(old).blob)
    after = Version(True, blobs.put(new).blob)

    found = review_file(blobs, "nb.ipynb", before, after)
    assert found.cells is not None
    summary = [(c.cell_id, c.status, c.outputs) for c in found.cells]
    assert summary == [
        ("a", "modified", "outputs: no outputs → 1 output: display_data (image/png)"),
        ("b", "modified", "outputs: 1 output: stream → 1 output: error (ZeroDivisionError)"),
        ("c", "deleted", "outputs: no outputs → none"),
    ]
    assert found.cells[0].hunks[0].lines == ["-plot()", "+plot(x)"]
    assert found.cells[1].hunks == []  # the source did not change
    review = wire("**Changes in turn 1**", [found], 1, "e-1").model_dump(mode="json")
    assert "iVBORw0KGgo" not in json.dumps(review)  # the image is named, never inlined
    assert review["files"][0]["cells"][2] == {
        "cell_id": "c", "cell_type": "code", "status": "deleted",
        "hunks": [{"old_start": 1, "old_lines": 1, "new_start": 0, "new_lines": 0,
                   "lines": ["-x = 1"]}],
        "outputs": "outputs: no outputs → none",
    }  # fmt: skip
