"""The summariser `@var:` runs in a notebook's kernel (labextension/src/lab/var-mentions.ts),
run here on real values: a DataFrame's type, shape, dtypes and head(); a long repr cut; a
missing name; a value whose repr raises."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd

SOURCE = Path(__file__).resolve().parents[3] / "labextension" / "src" / "lab" / "var-mentions.ts"


def _summarise(ns: dict[str, Any], name: str) -> Any:
    found = re.search(r"export const SUMMARISER = `(.*?)`;", SOURCE.read_text(), re.S)
    assert found is not None
    code = found.group(1).replace("\\\\", "\\")  # the template literal's escapes
    scope: dict[str, Any] = {"ns": ns, "name": name}
    exec(code, scope)
    return scope["result"]._repr_json_()


def test_a_dataframe_is_its_type_shape_dtypes_and_head() -> None:
    df = pd.DataFrame({"city": [f"c{i}" for i in range(9)], "temp": [float(i) for i in range(9)]})
    text = _summarise({"df": df}, "df")["text"]
    assert text.splitlines()[:3] == ["type: pandas.DataFrame", "shape: (9, 2)", "dtypes:"]
    assert "temp    float64" in text
    assert text.split("head():\n")[1] == df.head().to_string()  # five rows, not nine


def test_other_values_are_a_truncated_repr() -> None:
    summary = _summarise({"xs": list(range(5000))}, "xs")
    assert summary["ok"] is True
    lines = summary["text"].splitlines()
    assert lines[:2] == ["type: list", "len: 5000"]
    assert lines[2].startswith("repr: [0, 1, 2")
    assert lines[2].endswith("more characters)")
    assert len(lines[2]) < 3100


def test_a_missing_name_and_a_failing_repr_are_said() -> None:
    class Broken:
        def __repr__(self) -> str:
            raise RuntimeError("no repr today")

    assert _summarise({}, "df") == {"ok": False, "error": "missing"}
    text = _summarise({"b": Broken()}, "b")["text"]
    assert text.endswith("(the summary stopped: RuntimeError: no repr today)")


def test_the_shard_magics_summariser_is_the_chats() -> None:
    """`%%shard`'s `@var:` (shard_kernel/var_summary.py) runs the very code the chat sends."""
    from shard_kernel.var_summary import SUMMARISER

    found = re.search(r"export const SUMMARISER = `(.*?)`;", SOURCE.read_text(), re.S)
    assert found is not None
    assert found.group(1).replace("\\\\", "\\") == SUMMARISER
