"""`%shard inject`, `%%shard --inject` and `%shard title` through a real IPython shell."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

from shard_core.types import MessageEntry, TextBlock


@pytest.fixture
def shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[InteractiveShell]:
    monkeypatch.setenv("SHARD_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))  # no gateway to find
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "SHARD_GATEWAY_URL", "SHARD_GATEWAY_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "shard_kernel")
    yield ip
    ip.run_line_magic("unload_ext", "shard_kernel")
    InteractiveShell.clear_instance()


def _users(host: Any) -> list[tuple[str, str | None]]:
    """(text, context kind) of every user message in the agent's log, in order."""
    found: list[tuple[str, str | None]] = []
    for entry in host.agent.session.store.branch():
        if isinstance(entry, MessageEntry) and entry.details.message.role == "user":
            blocks = entry.details.message.content
            text = "".join(b.text for b in blocks if isinstance(b, TextBlock))
            kind = entry.details.context.kind if entry.details.context else None
            found.append((text, kind))
    return found


def test_inject_logs_context_without_a_turn_and_the_next_prompt_follows_it(
    shell: InteractiveShell, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("the API key rotates hourly\n")
    shell.run_line_magic("shard", f"new --name a --cwd {work} --model scripted/demo")
    host = shell.magics_manager.registry["ShardMagics"].agents["a"]  # type: ignore[attr-defined]
    shell.run_line_magic("shard", "inject remember: Python 3.11 only")
    shell.run_line_magic("shard", f"inject --file {work / 'notes.txt'}")
    shell.run_cell("21 * 2", store_history=True)
    shell.run_line_magic("shard", "inject --last")
    shell.run_cell_magic("shard", '--inject --kind output --label "cell 7"', "ValueError: boom\n")
    assert host.agent.session.meter.total.output_tokens == 0  # no turn ran
    assert _users(host) == [
        ('<context kind="note">\nremember: Python 3.11 only\n</context>', "note"),
        (
            f'<context kind="file" label="{work / "notes.txt"}">\nthe API key rotates hourly\n\n'
            "</context>",
            "file",
        ),
        ('<context kind="output" label="Out[1]">\n42\n</context>', "output"),
        ('<context kind="output" label="cell 7">\nValueError: boom\n</context>', "output"),
    ]
    shell.run_cell_magic("shard", "--wait", "what did I tell you?")
    assert _users(host)[4][0] == "what did I tell you?"
    shell.run_line_magic("shard", "title Key rotation notes")
    assert host.agent.title == "Key rotation notes"
    out = capsys.readouterr().out
    assert "a: injected note (26 characters); logged" in out
    assert "a: titled 'Key rotation notes'" in out


def test_bad_inject_input_says_why(
    shell: InteractiveShell, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shell.run_line_magic("shard", f"new --name a --cwd {tmp_path} --model scripted/demo")
    host = shell.magics_manager.registry["ShardMagics"].agents["a"]  # type: ignore[attr-defined]
    shell.run_line_magic("shard", "inject")
    shell.run_line_magic("shard", f"inject --file {tmp_path / 'missing.txt'}")
    shell.run_line_magic("shard", "inject --last")
    shell.run_line_magic("shard", "title")
    out = capsys.readouterr().out
    assert "nothing to inject: give text, --file PATH or --last" in out
    assert "cannot read" in out
    assert "missing.txt" in out
    assert "no output yet: run a cell that shows a value first" in out
    assert "title takes the new title" in out
    assert "Traceback" not in out
    assert _users(host) == []


def test_a_cells_var_mentions_go_with_its_prompt_and_a_missing_one_sends_nothing(
    shell: InteractiveShell, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    shell.run_line_magic("shard", f"new --name v --cwd {work} --model scripted/demo")
    host = shell.magics_manager.registry["ShardMagics"].agents["v"]  # type: ignore[attr-defined]
    shell.run_cell(
        'import pandas as pd\ndf = pd.DataFrame({"city": ["Oslo", "Lima"], "temp": [3.5, 18.0]})'
    )
    shell.user_ns["__session__"] = str(tmp_path / "frames.ipynb")  # as ipykernel names it

    shell.run_cell_magic("shard", "--wait", "what is in @var:df and @var:nothere?")
    assert "there is no variable nothere in frames.ipynb's kernel" in capsys.readouterr().out
    assert _users(host) == []  # df not sent either, and no turn

    shell.run_cell_magic("shard", "--wait", "what is in @var:df?")
    [(context, kind), (prompt, _)] = _users(host)
    assert kind == "variable"
    assert context.startswith('<context kind="variable" label="@var:df from frames.ipynb">\n')
    assert context.splitlines()[1:4] == ["type: pandas.DataFrame", "shape: (2, 2)", "dtypes:"]
    assert "Oslo" in context
    assert prompt == "what is in @var:df?"
