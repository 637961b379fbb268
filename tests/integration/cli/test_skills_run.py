"""Issue 21's "done when": a skill folder dropped into `.agents/skills/`, then `shard run
--trust-project "use the X skill to …"` (a scripted model): the catalog reaches the request, the
load shows as a card, and the skill's instructions are followed. Separate processes, temp homes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SKILL = """---
name: greeting-file
description: Create the project's greeting file. Use when asked to greet the project.
license: MIT
---

# Greeting file

1. Create the file `GREETING.txt` at the workspace root.
2. Its whole content is the line `hello from the skill`.
"""

FILE, GREETING = "GREETING.txt", "hello from the skill\n"
SCRIPT = {
    "name": "skill-run",
    "steps": [
        {
            "text": "I'll load the greeting-file skill first.",
            "tool_calls": [{"name": "load_skill", "input": {"name": "greeting-file"}}],
        },
        {
            "expect": {
                "last_tool_result_contains": ["GREETING.txt", "hello from the skill"],
                "last_tool_is_error": False,
                "description": "the skill's instructions",
            },
            "tool_calls": [{"name": "write", "input": {"path": FILE, "content": GREETING}}],
        },
        {
            "expect": {"last_tool_is_error": False, "description": "the write to succeed"},
            "text": "Created GREETING.txt as the skill says.",
        },
    ],
}


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    out = dict(os.environ)
    out["SHARD_HOME"] = str(tmp_path / "shard-home")
    out["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    out["HOME"] = str(tmp_path / "home")
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        out.pop(key, None)
    return out


@pytest.fixture
def work(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    skill = work / ".agents" / "skills" / "greeting-file"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL)
    (tmp_path / "script.json").write_text(json.dumps(SCRIPT))
    return work


def _run(env: dict[str, str], work: Path, *args: str) -> subprocess.CompletedProcess[str]:
    script = work.parent / "script.json"
    prompt = "use the greeting-file skill to greet the project"
    return subprocess.run(
        [sys.executable, "-m", "shard_kernel.cli", "run", "--model", f"scripted/{script}",
         "--allow", "Write(GREETING.txt)", *args, prompt],
        capture_output=True, text=True, env=env, cwd=work, timeout=300, check=False,
    )  # fmt: skip


def _requests_system(env: dict[str, str]) -> list[str]:
    """Every system prompt the session log says a request carried."""
    [log] = Path(env["SHARD_HOME"], "sessions").glob("*.jsonl")
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    return [
        "\n".join(s["text"] for s in e["details"]["system"])
        for e in entries
        if e["type"] == "checkpoint" and e["details"]["kind"] == "context"
    ]


def test_a_dropped_in_skill_is_offered_loaded_and_followed(env: dict[str, str], work: Path) -> None:
    result = _run(env, work, "--trust-project")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    out = result.stdout
    # the catalog reached the request, metadata only
    [system, *_] = _requests_system(env)
    skill_md = work.resolve() / ".agents" / "skills" / "greeting-file" / "SKILL.md"
    assert (
        "- greeting-file: Create the project's greeting file. Use when asked to greet the "
        f"project. ({skill_md})"
    ) in system
    assert "hello from the skill" not in system
    # the load card: which skill, from where, its instructions
    assert "▶ load_skill" in out
    assert "✓ load_skill" in out
    assert "skill greeting-file loaded" in out
    assert f"directory: {skill_md.parent}" in out
    assert "Its whole content is the line `hello from the skill`." in out
    # the instructions followed
    assert (work / "GREETING.txt").read_text() == "hello from the skill\n"
    assert "Created GREETING.txt as the skill says." in out
    assert out.index("skill greeting-file loaded") < out.index("✓ write")


def test_without_trust_the_skill_is_skipped_and_the_header_says_why(
    env: dict[str, str], work: Path
) -> None:
    result = _run(env, work)
    out = result.stdout
    skills_dir = work.resolve() / ".agents" / "skills"
    header = out[: out.index("▶ load_skill")]
    assert f"· skills: skipped {skills_dir}: project skills need --trust-project" in header
    [system, *_] = _requests_system(env)
    assert "<available_skills>" not in system
    assert "unknown tool 'load_skill'" in out
    assert not (work / "GREETING.txt").exists()
