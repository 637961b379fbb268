"""Recall stays in its workspace, end to end: an agent in project B (`shard run`, headless
`deny`, no rules) tries four ways into project A's transcript — every workspace's sessions
(`home: true`), A's session by id, a `..` path to a copy of A's log outside SHARD_HOME, and a
glob — and none of A's words reach B's output or B's session log; B's own earlier session is
still found and read.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from shard_core.sdk import create_agent


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "KERNEL_SHARD_"))}
    for name in ("JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_CONFIG_DIR", "IPYTHONDIR"):
        out[name] = str(tmp_path / name.lower())
    out["SHARD_HOME"] = str(tmp_path / "home")
    out["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "SHARD_GATEWAY_URL"):
        out.pop(key, None)
    return out


def _script(path: Path, steps: list[dict[str, object]]) -> str:
    path.write_text(json.dumps({"name": path.stem, "steps": steps}))
    return f"scripted/{path}"


async def _session(home: Path, cwd: Path, model: str, prompt: str, **options: object) -> Path:
    """A real agent's turn in `cwd`; returns its session log."""
    agent = await create_agent(cwd=cwd, model=model, home=home, env={}, **options)  # type: ignore[arg-type]
    try:
        await agent.run(prompt)
    finally:
        await agent.close()
    return agent.session.store.path


def _recall(**input: object) -> dict[str, object]:
    return {"text": "recalling", "tool_calls": [{"name": "recall", "input": input}]}


async def test_an_agent_in_project_b_cannot_recall_project_a(
    env: dict[str, str], tmp_path: Path
) -> None:
    home, project_a, project_b = tmp_path / "home", tmp_path / "a", tmp_path / "b"
    project_a.mkdir()
    project_b.mkdir()
    word, secret = f"zebra{uuid.uuid4().hex[:12]}", f"moonlit{uuid.uuid4().hex}"
    mine = f"heron{uuid.uuid4().hex[:12]}"
    said = f"The vault combination for {word} is {secret}."
    a_model = _script(tmp_path / "a.json", [{"text": said}])
    a_log = await _session(home, project_a, a_model, f"remember {word}", agent_id="agent-projecta")
    b_model = _script(tmp_path / "b-old.json", [{"text": f"B's own note: {mine} is blue."}])
    b_old = await _session(home, project_b, b_model, f"note {mine}")
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(a_log, outside / "copied.jsonl")  # home/sessions/../../outside/copied.jsonl

    probes = [
        _recall(sessions="all", home=True, query=word),
        _recall(session=a_log.stem, query=word),
        _recall(session="../../outside/copied", query=word),
        _recall(session="*", query=word),
        _recall(sessions="all", query=mine),  # controls: this workspace's sessions
        _recall(session=b_old.stem, query=mine),
    ]
    model = _script(tmp_path / "probe.json", [*probes, {"text": "done"}])
    result = subprocess.run(
        [sys.executable, "-m", "shard_kernel.cli", "run", "--model", model, "--json", "look"],
        capture_output=True, text=True, env=env, cwd=project_b, timeout=300, check=False,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip

    results = [
        json.loads(line)["result"]
        for line in result.stdout.splitlines()
        if line.startswith("{") and json.loads(line).get("type") == "tool_result"
    ]
    texts = [" ".join(b.get("text", "") for b in r["content"]) for r in results]
    assert len(texts) == 6, result.stdout[-3000:] + result.stderr[-3000:]
    assert [r["is_error"] for r in results] == [True, True, True, True, False, False], texts
    assert "no one to ask" in texts[0]
    assert "outside the workspace" in texts[0]
    assert "no one to ask" in texts[1]
    assert f"session {a_log.stem} of {project_a}" in texts[1]
    assert texts[2].startswith("recall: session must be a session id")
    assert texts[3].startswith("recall: session must be a session id")
    assert b_old.stem in texts[4]
    assert "blue" in texts[4]
    assert "blue" in texts[5]
    b_logs = [p for p in (home / "sessions").glob("*.jsonl") if p != b_old]
    places = {"stdout": result.stdout, "stderr": result.stderr}
    places |= {str(p): p.read_text() for p in b_logs}
    assert [where for where, text in places.items() if secret in text] == []
