"""The README's main job and `shard run`, as a user runs them: separate processes, temp homes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from shard_core.providers.models import FIRST_CONTACT


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    out = dict(os.environ)
    for name in ("JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_CONFIG_DIR", "IPYTHONDIR"):
        out[name] = str(tmp_path / name.lower())
    out["SHARD_HOME"] = str(tmp_path / "shard-home")
    out["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    out["TMPDIR"] = str(tmp_path / "t")
    (tmp_path / "t").mkdir()
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        out.pop(key, None)
    return out


def _shard(
    env: dict[str, str], *args: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "shard_kernel.cli", *args],
        capture_output=True, text=True, env=env, cwd=cwd, timeout=300, check=False,
    )  # fmt: skip


def test_shard_demo_fixes_the_bug(env: dict[str, str]) -> None:
    result = _shard(env, "demo")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "2 passed" in result.stdout
    assert "+def add(a, b): return a + b" in result.stdout
    # the demo project's test run is its own: no warning from this environment's pytest plugins
    assert "PytestDeprecationWarning" not in result.stdout
    assert "Warning" not in result.stdout
    # the kernel is on Unix sockets in a private folder (no TCP warning), stopped before we exit
    # (no "Parent appears to have exited"), and the folder is gone afterwards
    assert result.stderr == ""
    assert list(Path(env["TMPDIR"]).iterdir()) == []


def test_shard_run_json_events(env: dict[str, str], tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "calc.py").write_text("def add(a, b): return a - b\n")
    result = _shard(env, "run", "--model", "scripted/demo", "--json", "fix it", cwd=work)
    assert result.returncode == 3, result.stderr  # the turn ended blocked by the denials below
    assert result.stderr == ""
    events = [json.loads(line) for line in result.stdout.splitlines()]
    kinds = [e["type"] for e in events]
    assert kinds[0] == "status"
    assert events[0]["demo"] is True
    assert "turn_end" in kinds
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(seqs)
    # without a terminal nobody can answer the edit's permission ask: the headless policy denies
    denied = [e for e in events if e["type"] == "permission_resolved"]
    assert denied
    assert denied[0]["decision"] == "deny"
    assert (work / "calc.py").read_text() == "def add(a, b): return a - b\n"


@pytest.mark.parametrize("extra", [[], ["--json"]])
def test_shard_run_with_no_model_says_what_to_set(
    env: dict[str, str], tmp_path: Path, extra: list[str]
) -> None:
    """No key, no config.json model, no --model, a folder that is not the demo project: one
    line saying what to set and its own exit status — not the demo script, not exit 0."""
    work = tmp_path / "empty"
    work.mkdir()
    result = _shard(env, "run", *extra, "explain this repo", cwd=work)
    assert result.returncode == 5
    assert result.stderr == f"shard: {FIRST_CONTACT}\n"
    assert result.stdout == ""
    assert not Path(env["SHARD_HOME"], "sessions").exists()  # nothing ran, nothing was logged


def test_bad_model_is_a_clear_error(env: dict[str, str], tmp_path: Path) -> None:
    result = _shard(env, "run", "--model", "nonsense", "hi", cwd=tmp_path)
    assert result.returncode == 2  # bad input
    assert result.stderr.startswith("shard: error:")
    assert "Traceback" not in result.stderr


def test_agent_stdio_speaks_jsonl(env: dict[str, str], tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "calc.py").write_text("def add(a, b): return a - b\n")
    lines = [
        '{"type":"prompt","text":"fix it","id":"p1"}',
        "this line is not json",
        '{"type":"steer"}',
    ]
    result = subprocess.run(
        [sys.executable, "-m", "shard_kernel.cli", "agent", "--stdio", "--model", "scripted/demo",
         "--cwd", str(work), "--allow", "Edit(**)"],
        input="\n".join(lines) + "\n", capture_output=True, text=True, env=env, timeout=120,
        check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    replies = [r for r in records if r["type"] == "reply"]
    assert [r["ok"] for r in replies] == [False, False]
    assert replies[0]["message"].startswith("line 2: invalid JSON")
    assert "text: Field required" in replies[1]["message"]
    kinds = [r["type"] for r in records]
    assert "turn_end" in kinds
    assert (work / "calc.py").read_text() == "def add(a, b): return a + b\n"


def test_sessions_list_show_fork(env: dict[str, str], tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    assert _shard(env, "run", "--model", "scripted/demo", "hello", cwd=work).returncode in (0, 1)
    listing = _shard(env, "sessions", "list")
    assert listing.returncode == 0
    session_id = listing.stdout.split()[0]
    shown = _shard(env, "sessions", "show", session_id)
    assert "user" in shown.stdout
    assert "hello" in shown.stdout
    forked = _shard(env, "sessions", "fork", session_id)
    assert forked.returncode == 0
    assert f"forked {session_id}" in forked.stdout
    missing = _shard(env, "sessions", "show", "s-nope")
    assert missing.returncode == 2  # bad input: no such session
    assert "no session 's-nope'" in missing.stderr
