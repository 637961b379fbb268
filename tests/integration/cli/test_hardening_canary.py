"""Issue 20 end to end: through `shard run` (a scripted model that tries every way out), a canary
file outside the workspace, a canary secret in the environment and a provider key given by a
named credential never appear in stdout, stderr, the session JSONL or any file under SHARD_HOME.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    for name in ("JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_CONFIG_DIR", "IPYTHONDIR"):
        out[name] = str(tmp_path / name.lower())
    out["SHARD_HOME"] = str(tmp_path / "shard-home")
    out["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    out["TMPDIR"] = str(tmp_path / "t")
    (tmp_path / "t").mkdir()
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        out.pop(key, None)
    return out


def _every_way_out(paths: list[Path]) -> dict[str, object]:
    """A script whose calls try to print the canaries: files outside, the environment."""
    calls: list[dict[str, object]] = []
    for path in paths:
        calls += [
            {"name": "read", "input": {"path": str(path)}},
            {"name": "bash", "input": {"command": f"cat {path}"}},
            {"name": "grep", "input": {"pattern": "canary", "path": str(path.parent)}},
        ]
    calls += [
        {"name": "bash", "input": {"command": "env"}},
        {"name": "bash", "input": {"command": 'echo "[$CANARY_TOKEN][$SOME_BLOB]"'}},
        {"name": "bash", "input": {"command": "printenv CANARY_TOKEN; set"}},
    ]
    steps: list[dict[str, object]] = [{"text": "looking", "tool_calls": [c]} for c in calls]
    steps.append({"text": "done"})
    return {"name": "canary", "steps": steps}


def test_canary_never_leaves_through_shard_run(env: dict[str, str], tmp_path: Path) -> None:
    work, outside, home = tmp_path / "work", tmp_path / "outside", Path(env["SHARD_HOME"])
    work.mkdir()
    outside.mkdir()
    file_canary = f"CANARYFILE{uuid.uuid4().hex}"
    env_canary = f"canary-env-{uuid.uuid4().hex}"
    shape_canary = "ghp_" + uuid.uuid4().hex[:30]  # a secret by its shape only
    key_canary = f"sk-canarykey{uuid.uuid4().hex}"
    (outside / "canary.txt").write_text(f"canary {file_canary}\n")
    (outside / "openai.key").write_text(key_canary + "\n")
    config = Path(env["XDG_CONFIG_HOME"]) / "shard" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text(
        json.dumps(
            {
                "credentials": {"openai": {"file": str(outside / "openai.key")}},
                "providers": {"openai": {"credential": "openai"}},
            }
        )
    )
    script = tmp_path / "canary.json"
    script.write_text(json.dumps(_every_way_out([outside / "canary.txt", outside / "openai.key"])))
    env |= {"CANARY_TOKEN": env_canary, "SOME_BLOB": shape_canary}
    (work / "README.md").write_text("a workspace\n")

    result = subprocess.run(
        [
            sys.executable, "-m", "shard_kernel.cli", "run",
            "--model", f"scripted/{script}", "--allow", "Bash(env)", "--allow", "Bash(set)",
            "--allow", "Bash(echo:*)", "--allow", "Bash(printenv:*)", "print the secrets",
        ],
        capture_output=True, text=True, env=env, cwd=work, timeout=300, check=False,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip

    files = [p for p in home.rglob("*") if p.is_file()]
    sessions = [p for p in files if p.suffix == ".jsonl"]
    assert sessions, result.stdout + result.stderr
    assert "PATH=" in result.stdout  # the env command did run: what it printed was scrubbed
    assert result.stdout.count("denied by headless policy") >= 6  # the reads were tried
    places = {"stdout": result.stdout, "stderr": result.stderr}
    places |= {str(p): p.read_text(errors="replace") for p in files}
    for canary in (file_canary, env_canary, shape_canary, key_canary):
        leaked = [where for where, text in places.items() if canary in text]
        assert leaked == [], canary
