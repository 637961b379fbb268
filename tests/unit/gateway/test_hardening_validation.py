"""Issue 20 item 8: every numeric field of a create request is bounded, with a clear message."""

from __future__ import annotations

from pathlib import Path

import pytest

from shard_kernel.gateway.validation import BadRequestError, parse_create, parse_json_object

RANGE = "permission_timeout must be a number of seconds above 0 and at most 86400, not "
BAD = {
    "Infinity": "Infinity",
    "-Infinity": "-Infinity",
    "NaN": "NaN",
    "-5": "-5",
    "0": "0",
    "86400.5": "86400.5",
    "1e300": "1e+300",
    "1e999": "Infinity",  # what json reads it as
    '"1e999"': "Infinity",  # a number sent as a string, read by the model
    "1" + "0" * 400: "1" + "0" * 36 + "...",  # an int too big for a float
    "true": "true",
}


@pytest.mark.parametrize(("raw", "shown"), BAD.items())
def test_a_permission_timeout_out_of_range_is_refused_naming_the_range(
    tmp_path: Path, raw: str, shown: str
) -> None:
    body = parse_json_object(f'{{"cwd": "{tmp_path}", "permission_timeout": {raw}}}'.encode())
    with pytest.raises(BadRequestError) as caught:
        parse_create(body)
    assert str(caught.value) == RANGE + shown


@pytest.mark.parametrize("raw", ["0.5", "60", "86400", '"90"'])
def test_a_permission_timeout_in_range_is_kept(tmp_path: Path, raw: str) -> None:
    body = parse_json_object(f'{{"cwd": "{tmp_path}", "permission_timeout": {raw}}}'.encode())
    assert parse_create(body).permission_timeout == float(raw.strip('"'))


def test_a_number_with_thousands_of_digits_is_refused_as_such(tmp_path: Path) -> None:
    with pytest.raises(BadRequestError) as caught:
        parse_json_object(f'{{"cwd": "{tmp_path}", "permission_timeout": {"9" * 5000}}}'.encode())
    assert str(caught.value) == "the request body is not valid JSON: a number has too many digits"


PEEK = Path(__file__).resolve().parents[2] / "fixtures" / "extensions" / "peek_tool.py"


def test_a_rule_for_an_extension_tool_in_shard_home_is_valid_in_a_create(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent will have SHARD_HOME/extensions' `peek`: `Peek(src/**)` is a rule of it, as
    `NotebookEdit(*.ipynb)` is of a bundled tool; a tool nobody registers still takes none."""
    home = tmp_path / "home"
    (home / "extensions").mkdir(parents=True)
    (home / "extensions" / "peek_tool.py").write_text(PEEK.read_text(encoding="utf-8"))
    monkeypatch.setenv("SHARD_HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    allow = ["Peek(src/**)", "NotebookEdit(*.ipynb)", "WebFetch(domain:docs.python.org)"]
    body = {"cwd": str(tmp_path), "permissions": {"allow": allow}}

    assert parse_create(body).permissions.allow == allow
    with pytest.raises(BadRequestError, match=r"Glance\(…\) takes no specifier"):
        parse_create({"cwd": str(tmp_path), "permissions": {"deny": ["Glance(src/**)"]}})
