"""Issue 32 items 5 and 6 end to end, through `shard run --json` and a real bash tool: eight
secrets the first definition missed (`DB_PASS`, `SLACK_WEBHOOK_URL`, …), their encodings, and a
background task's end notice never appear in stdout (the `--json` events), stderr or the log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from shard_core.types.secrets import encoded_forms
from tests.unit.engine.test_hardening_redaction import LEAKED

pytestmark = pytest.mark.integration

PW = LEAKED["DB_PASS"]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    for name in ("JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_CONFIG_DIR", "IPYTHONDIR"):
        out[name] = str(tmp_path / name.lower())
    out["SHARD_HOME"] = str(tmp_path / "shard-home")
    out["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        out.pop(key, None)
    return out | LEAKED


def _script(tmp_path: Path) -> Path:
    url = "import sys,urllib.parse as u;print(u.quote(open('pw.txt').read()))"
    commands = [
        "env",
        "base64 pw.txt; base64 creds.txt; printf 'k=%s' \"$(cat pw.txt)\" | base64",
        "od -An -v -tx1 pw.txt | tr -d ' \\n'; echo",
        f'python3 -c "{url}"',
    ]
    calls: list[dict[str, object]] = [{"name": "bash", "input": {"command": c}} for c in commands]
    calls.append({"name": "read", "input": {"path": "creds.txt"}})
    background = "cat creds.txt; touch done.flag"
    calls.append({"name": "bash", "input": {"command": background, "background": True}})
    # wait for the task to end, then a little for its notice: the next request carries it
    wait = "until [ -e done.flag ]; do sleep 0.1; done; sleep 1"
    calls.append({"name": "bash", "input": {"command": wait}})
    steps: list[dict[str, object]] = [{"text": "looking", "tool_calls": [c]} for c in calls]
    script = tmp_path / "shapes.json"
    script.write_text(json.dumps({"name": "shapes", "steps": [*steps, {"text": "done"}]}))
    return script


def test_item5_and_6_secret_shapes_never_reach_env_the_log_or_the_events(
    env: dict[str, str], tmp_path: Path
) -> None:
    work, home = tmp_path / "work", Path(env["SHARD_HOME"])
    work.mkdir()
    (work / "pw.txt").write_text(PW)
    (work / "creds.txt").write_text("".join(f"{k}={v}\n" for k, v in LEAKED.items()))
    result = subprocess.run(
        [sys.executable, "-m", "shard_kernel.cli", "run", "--json", "--model",
         f"scripted/{_script(tmp_path)}", "--allow", "Bash", "find the secrets"],
        capture_output=True, text=True, env=env, cwd=work, timeout=300, check=False,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip

    [log] = [p for p in home.rglob("*.jsonl") if "sessions" in p.parts]
    logged = log.read_text()
    assert "PATH=" in result.stdout  # env ran
    assert logged.count("[secret]") >= 8  # the reads, the encodings, the notice were redacted
    assert "[background task" in logged  # the notice was logged …
    assert "steer_receipt" in result.stdout  # … and sent as an event
    places = {"stdout": result.stdout, "stderr": result.stderr, "log": logged}
    for name, value in LEAKED.items():
        leaked = [where for where, text in places.items() if value in text]
        assert leaked == [], name
    assert PW.encode().hex() not in result.stdout + logged
    assert "Tr0ub4dor%263-staple" not in result.stdout + logged
    # base64 of each value at any alignment (`base64` wraps its lines: joined here)
    joined = "".join(
        _strings([json.loads(line) for line in [*result.stdout.splitlines(), *logged.splitlines()]])
    )
    for name, value in LEAKED.items():
        assert [f for f in encoded_forms(value) if f in joined] == [], name


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value.replace("\n", "")]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]  # pyright: ignore[reportUnknownVariableType]
    return []
