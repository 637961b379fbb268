"""`%shard` magics through a real IPython InteractiveShell, with the scripted provider."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell

from shard_core.providers.models import FIRST_CONTACT
from shard_core.types import PermissionEntry


@pytest.fixture
def shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[InteractiveShell]:
    monkeypatch.setenv("SHARD_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    # no gateway to find: `%shard new` falls back to an in-process agent (a server running on
    # this machine would otherwise get the agent)
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "SHARD_GATEWAY_URL", "SHARD_GATEWAY_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "shard_kernel")
    yield ip
    ip.run_line_magic("unload_ext", "shard_kernel")
    InteractiveShell.clear_instance()


def test_new_wait_list_mode_status(
    shell: InteractiveShell, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "calc.py").write_text("def add(a, b): return a - b\n")
    shell.run_line_magic(
        "shard", f"new --name fixer --cwd {work} --model scripted/demo --allow Edit(**)"
    )
    shell.run_cell_magic("shard", "--wait", "fix the bug in calc.py")
    assert (work / "calc.py").read_text() == "def add(a, b): return a + b\n"
    # the cell blocked, so nobody could click: the headless policy decided the bash ask at once
    host = shell.magics_manager.registry["ShardMagics"].agents["fixer"]  # type: ignore[attr-defined]
    asked = [
        e.details
        for e in host.agent.session.store.entries
        if isinstance(e, PermissionEntry) and e.details.tool == "bash"
    ]
    assert [(d.source, d.decision) for d in asked] == [("headless", "deny")]
    shell.run_line_magic("shard", "list")
    shell.run_line_magic("shard", "mode plan")
    shell.run_line_magic("shard", "status")
    out = capsys.readouterr().out
    assert "agent fixer: demo (scripted demo" in out
    assert "%shard: no Shard gateway found, so fixer runs in this kernel" in out
    assert "* fixer" in out
    assert "fixer: plan mode" in out
    assert "fixer: idle, plan mode" in out


def test_bad_arguments_print_usage_not_a_traceback(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    shell.run_line_magic("shard", "frobnicate")
    shell.run_line_magic("shard", "new --mode")
    shell.run_line_magic("shard", "mode")
    out = capsys.readouterr()
    assert out.out.count("%shard: error:") == 3
    assert "unknown command 'frobnicate'" in out.out
    assert "usage:" in out.out
    assert "Traceback" not in out.out + out.err


@pytest.mark.parametrize("line", ["--help", "-h", "help", "new --help", "attach -h"])
def test_help_prints_the_usage_and_no_error(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str], line: str
) -> None:
    shell.run_line_magic("shard", line)
    out = capsys.readouterr()
    assert out.out.startswith("usage:\n  %shard new")
    assert "error" not in out.out
    assert "unknown command" not in out.out


def test_a_shard_cell_with_no_model_says_what_to_set(
    shell: InteractiveShell,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No key, no configured model, a folder that is not the demo's: the cell's turn shows the
    first-contact message, not the demo script failing inside itself."""
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    work = tmp_path / "work"
    work.mkdir()
    (work / "README.md").write_text("# some project\n")
    shell.run_line_magic("shard", f"new --local --name first --cwd {work}")
    shell.run_cell_magic("shard", "--wait", "explain this repo")
    out = capsys.readouterr().out
    assert f"%shard: the turn ended: error {FIRST_CONTACT}" in out
    assert "[scripted demo]" not in out
    assert "calc.py" not in out


def test_new_with_a_goal(
    shell: InteractiveShell, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    shell.run_line_magic(
        "shard", f'new --local --name aimed --cwd {work} --model scripted/demo --goal "ship v2"'
    )
    host = shell.magics_manager.registry["ShardMagics"].agents["aimed"]  # type: ignore[attr-defined]
    assert host.agent.session.goal == "ship v2"
    shell.run_line_magic(
        "shard", f"new --local --name long --cwd {work} --model scripted/demo --goal {'x' * 501}"
    )
    out = capsys.readouterr().out
    assert "%shard: error: the goal is 501 characters; the limit is 500." in out
    assert "long" not in shell.magics_manager.registry["ShardMagics"].agents  # type: ignore[attr-defined]
