"""The agent widget's `@` mentions, resolved in the notebook's kernel: `@var:` by the summariser
`%%shard` uses, `@file:` inside the agent's folder only, `@cell:`/`@output:` from the saved
notebook `__session__` names (its images with them); each labelled with its source, and a
mention that cannot be resolved is refused with the reason, none sent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from shard_kernel import widget_mentions
from shard_kernel.var_summary import summarise
from shard_widgets import MentionContext, MentionRefusedError

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4"
    "nGNgYGD4DwABBAEAHnOcQAAAAABJRU5ErkJggg=="
)


@pytest.fixture
def place(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    cwd = tmp_path / "project"
    cwd.mkdir()
    (cwd / "notes.md").write_text("remember the milk\n")
    (tmp_path / "secret.txt").write_text("outside\n")
    cells = [
        {"cell_type": "code", "id": "load", "source": ["import pandas as pd\n", "df = 1"],
         "execution_count": 1, "outputs": [], "metadata": {}},
        {"cell_type": "code", "id": "plot", "source": "df.plot()", "execution_count": 2,
         "metadata": {}, "outputs": [
             {"output_type": "stream", "name": "stdout", "text": "plotting\n"},
             {"output_type": "display_data", "metadata": {},
              "data": {"image/png": PNG, "text/plain": "<Figure>"}}]},
    ]  # fmt: skip
    notebook = cwd / "frame.ipynb"
    notebook.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                                    "nbformat_minor": 5}))  # fmt: skip
    df = pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "z"]})
    return cwd, {"df": df, "__session__": str(notebook), "n": 3}


def test_var_file_and_cell_mentions_become_labelled_context(
    place: tuple[Path, dict[str, Any]],
) -> None:
    cwd, ns = place
    found = widget_mentions.resolve("see @var:df, @file:notes.md and @cell:2", cwd, ns)
    [var, cell, file] = found.contexts
    summary = summarise(ns, "df")["text"]
    assert var == MentionContext(summary, "variable", "@var:df from frame.ipynb")
    assert "dtypes:" in var.text
    assert "head():" in var.text
    assert file == MentionContext("remember the milk\n", "file", "@file:notes.md")
    assert cell.label == "@cell:2 from frame.ipynb"
    assert cell.text.startswith('<cell notebook="frame.ipynb" id="plot" type="code"')
    assert "df.plot()" in cell.text
    assert "plotting" in cell.text
    assert [i.data for i in found.images] == [PNG]


def test_an_output_mention_is_the_outputs_alone_and_the_nth_one(
    place: tuple[Path, dict[str, Any]],
) -> None:
    cwd, ns = place
    [only] = widget_mentions.resolve("@output:2.1", cwd, ns).contexts
    assert only.label == "@output:2.1 from frame.ipynb"
    assert "plotting" in only.text
    assert "<cell" not in only.text
    assert "Figure" not in only.text


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("@var:gone", "there is no variable gone in frame.ipynb's kernel"),
        ("@file:../secret.txt", "@file:../secret.txt is outside the agent's folder"),
        ("@file:missing.md", "there is no text file missing.md in the agent's folder"),
        ("@cell:9", "there is no cell 9 in frame.ipynb (a position from 1, or an id)"),
        ("@output:1", "cell 1 of frame.ipynb has no outputs (as saved)"),
    ],
)
def test_a_mention_that_cannot_be_resolved_is_refused_with_the_reason(
    place: tuple[Path, dict[str, Any]], text: str, why: str
) -> None:
    cwd, ns = place
    with pytest.raises(MentionRefusedError) as refused:
        widget_mentions.resolve(f"@var:df and {text}", cwd, ns)
    assert str(refused.value).startswith(why)


def test_a_cell_mention_without_the_notebooks_path_says_so(tmp_path: Path) -> None:
    with pytest.raises(MentionRefusedError, match="need the notebook's path"):
        widget_mentions.resolve("@cell:1", tmp_path, {})


def test_the_completion_offers_kinds_then_names_files_and_cells(
    place: tuple[Path, dict[str, Any]],
) -> None:
    cwd, ns = place
    assert [o["insert"] for o in widget_mentions.options("@", cwd, ns)] == [
        "@file:", "@cell:", "@output:", "@var:"]  # fmt: skip
    assert widget_mentions.options("@var:d", cwd, ns) == [
        {"insert": "@var:df", "detail": "DataFrame"}
    ]
    assert [o["insert"] for o in widget_mentions.options("@file:", cwd, ns)] == [
        "@file:frame.ipynb", "@file:notes.md"]  # fmt: skip
    assert widget_mentions.options("@file:../", cwd, ns) == []
    assert widget_mentions.options("@output:", cwd, ns) == [
        {"insert": "@output:2", "detail": "df.plot()"}
    ]


def test_the_cells_as_the_page_shows_them_win_over_the_saved_file(
    place: tuple[Path, dict[str, Any]],
) -> None:
    cwd, ns = place
    unsaved = [{"cell_type": "code", "id": "new", "source": "df.describe()  # not saved",
                "execution_count": None, "outputs": []}]  # fmt: skip
    [cell] = widget_mentions.resolve("@cell:1", cwd, ns, shown=("frame.ipynb", unsaved)).contexts
    assert cell.label == "@cell:1 from frame.ipynb"
    assert "df.describe()  # not saved" in cell.text
    with pytest.raises(MentionRefusedError, match=r"cell 1 of frame\.ipynb has no outputs$"):
        widget_mentions.resolve("@output:1", cwd, ns, shown=("frame.ipynb", unsaved))
    listed = widget_mentions.options("@cell:", cwd, ns, ("frame.ipynb", unsaved))
    assert listed == [{"insert": "@cell:1", "detail": "df.describe()  # not saved"}]
