"""Checkpoint test helpers: a scripted agent over a workspace, and the workspace's bytes by hash."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

import nbformat

from shard_core.engine.config import ShardConfig
from shard_core.sdk import Agent, create_agent
from shard_kernel.notebook_tools.extension import notebook_extension

ALLOW = ["Edit(**)", "Write(**)", "Bash(*)", "NotebookEdit(**)"]


def hashes(root: Path) -> dict[str, str]:
    """Every file below `root` except `.git/`, by SHA-256: a rewind must restore every byte."""
    found: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel == ".git" or rel.startswith(".git/") or not path.is_file():
            continue
        found[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def make_notebook(path: Path, sources: list[str]) -> list[str]:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i}"
    nbformat.write(nb, str(path))
    return [c["id"] for c in nb.cells]


def write_script(path: Path, turns: list[list[dict[str, Any]]]) -> Path:
    """A scripted model: per turn one step with its tool calls, then one that ends the turn."""
    steps: list[dict[str, Any]] = []
    for n, calls in enumerate(turns, 1):
        steps.append({"text": f"turn {n}", "tool_calls": calls})
        steps.append({"text": f"turn {n} done"})
    path.write_text(json.dumps({"name": "checkpoints", "steps": steps}), encoding="utf-8")
    return path


async def scripted_agent(tmp_path: Path, ws: Path, script: Path) -> Agent:
    return await create_agent(
        cwd=ws,
        model=f"scripted/{script}",
        home=tmp_path / "home",
        config=ShardConfig(),
        env={"HOME": str(tmp_path / "user")},
        extensions=[notebook_extension()],
        allow=ALLOW,
    )


def git(ws: Path, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "HOME": str(ws), "PATH": "/usr/bin:/bin",
    }  # fmt: skip
    done = subprocess.run(
        ["git", *args], cwd=ws, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout
