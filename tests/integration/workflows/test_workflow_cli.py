"""`shard workflow run` on real in-process agents with scripted models: three agents (two in
parallel, one chained on their reports) write the expected files; the process is killed while
the third runs; `--resume` replays the two finished steps (not run again: one session each)
and runs the third. And the bad inputs: a file that does not import, a step never awaited."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

WORKFLOW = """
async def main(wf):
    a, b = await wf.parallel(
        wf.agent("write a.txt", model=wf.inputs["a"], cwd=wf.inputs["cwd"]),
        wf.agent("write b.txt", model=wf.inputs["b"], cwd=wf.inputs["cwd"]),
    )
    wf.log("both wrote")
    return await wf.agent(f"combine: {a} + {b}", model=wf.inputs["c"], cwd=wf.inputs["cwd"])
"""


def _writer(name: str, text: str, report: str, delay: float = 0) -> dict[str, object]:
    call = {"name": "write", "input": {"path": name, "content": text}}
    return {"name": name, "steps": [{"tool_calls": [call], "delay": delay}, {"text": report}]}


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    out = dict(os.environ)
    out.update(SHARD_HOME=str(tmp_path / "home"), XDG_CONFIG_HOME=str(tmp_path / "xdg"),
               HOME=str(tmp_path / "user"))  # fmt: skip
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        out.pop(key, None)
    return out


def _argv(*args: str) -> list[str]:
    allow = [x for f in ("a.txt", "b.txt", "c.txt") for x in ("--allow", f"Write({f})")]
    return [sys.executable, "-m", "shard_kernel.cli", "workflow", *args, *allow]


def _steps(home: Path) -> list[dict[str, object]]:
    files = list((home / "jobs" / "workflows").glob("wf-*/steps.jsonl"))
    # a line still being written has no newline yet: not a step
    return [json.loads(line) for f in files for line in f.read_text().split("\n")[:-1]]


def test_three_agents_survive_a_kill_and_resume(tmp_path: Path, env: dict[str, str]) -> None:
    work = tmp_path / "work"
    work.mkdir()
    scripts = {}
    for key, spec in {"a": _writer("a.txt", "A\n", "wrote A"),
                      "b": _writer("b.txt", "B\n", "wrote B"),
                      "c": _writer("c.txt", "A+B\n", "combined", delay=15)}.items():  # fmt: skip
        path = tmp_path / f"{key}.json"
        path.write_text(json.dumps(spec))
        scripts[key] = f"scripted/{path}"
    flow = tmp_path / "flow.py"
    flow.write_text(WORKFLOW)
    inputs = [x for k, v in {**scripts, "cwd": str(work)}.items() for x in ("--input", f"{k}={v}")]
    home = Path(env["SHARD_HOME"])
    out = {"stdout": subprocess.PIPE, "stderr": subprocess.STDOUT, "text": True}
    first = subprocess.Popen(_argv("run", str(flow), *inputs), env=env, cwd=work, **out)
    deadline = time.monotonic() + 120
    while sum(s["kind"] == "agent" for s in _steps(home)) < 2:  # both parallel steps recorded
        assert first.poll() is None, first.communicate()[0]
        assert time.monotonic() < deadline
        time.sleep(0.1)
    os.kill(first.pid, signal.SIGKILL)  # mid-run: the third agent is still in its delay
    said = first.communicate(timeout=30)[0]  # reaps it and closes its pipe
    assert not (work / "c.txt").exists(), said
    (run_id,) = [p.name for p in (home / "jobs" / "workflows").iterdir()]

    resumed = subprocess.run(_argv("run", "--resume", run_id), env=env, cwd=work,
                             capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert resumed.stdout.splitlines()[:2] == [
        f"workflow {run_id}: completed (1 ran, 2 replayed)",
        "combined",
    ]
    assert [(work / f).read_text() for f in ("a.txt", "b.txt", "c.txt")] == ["A\n", "B\n", "A+B\n"]
    asked = [s["asked"] for s in _steps(home)]
    assert asked == ["write a.txt", "write b.txt", "both wrote", "combine: wrote A + wrote B"]
    prompts = [json.loads(line)["details"]["message"]["content"][0]["text"]
               for log in (home / "sessions").glob("*.jsonl")
               for line in log.read_text().splitlines()[1:2]]  # fmt: skip
    assert sorted(p for p in prompts if p.startswith("write")) == ["write a.txt", "write b.txt"]

    status = subprocess.run(_argv("status", run_id)[:6], env=env, capture_output=True,
                            text=True, timeout=120, check=False)  # fmt: skip
    assert f"{run_id}: completed" in status.stdout


def test_bad_workflow_files_fail_with_a_message(tmp_path: Path, env: dict[str, str]) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("import no_such_module_here\n")
    idle = tmp_path / "idle.py"
    idle.write_text("async def main(wf):\n    wf.agent('never awaited')\n")
    unknown = tmp_path / "unknown.py"
    unknown.write_text("async def main(wf):\n    await wf.agent('hi', definition='nope')\n")
    for path, said in [
        (broken, "does not import: ModuleNotFoundError: No module named 'no_such_module_here'"),
        (idle, "step 0 (wf.agent('never awaited')) was never awaited: await it, or pass it to "
               "wf.parallel"),
        (unknown, "main raised ConfigError: no agent definition named 'nope'; known: none "
                  "(line 2)"),
    ]:  # fmt: skip
        argv = _argv("run", str(path))[:6]
        result = subprocess.run(argv, env=env, cwd=tmp_path, capture_output=True, text=True,
                                timeout=120, check=False)  # fmt: skip
        assert result.returncode == 1, result.stdout + result.stderr
        assert said in result.stdout, result.stdout


def test_the_bounds(tmp_path: Path, env: dict[str, str]) -> None:
    script = tmp_path / "slow.json"
    script.write_text(json.dumps({"name": "slow", "steps": [{"text": "done", "delay": 30}]}))
    many = tmp_path / "many.py"
    many.write_text(
        "async def main(wf):\n"
        f"    steps = [wf.agent(f'task {{n}}', model='scripted/{script}') for n in range(3)]\n"
        "    await wf.parallel(*steps)\n"
    )
    slow = tmp_path / "slow.py"
    slow.write_text(f"async def main(wf):\n    await wf.agent('wait', model='scripted/{script}')\n")
    for path, bound, said in [
        (many, ["--max-agents", "2"], "the workflow asked for agent 3; its bound is 2 "
                                      "(--max-agents)"),
        (slow, ["--deadline", "1"], "the run passed its deadline of 1 s (--deadline); finished "
                                    "steps stay"),
    ]:  # fmt: skip
        argv = [*_argv("run", str(path))[:6], *bound]
        result = subprocess.run(argv, env=env, cwd=tmp_path, capture_output=True, text=True,
                                timeout=120, check=False)  # fmt: skip
        assert result.returncode == 1, result.stdout + result.stderr
        assert said in result.stdout, result.stdout
