"""`shard batch` ends when it should, whatever the kernel does: a cell past --timeout while the
kernel is quiet, a queued ask nobody can answer, SIGTERM or SIGINT mid-cell, a kernel that dies.
Each time the notebook is written with what ran, the stopped cell says why, no kernel is left,
and the exit status names what happened (shard_kernel/exit_codes.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import nbformat
import psutil
import pytest

from shard_kernel.exit_codes import ExitCode
from tests.fixtures.processes import marked_sleep, process_alive
from tests.integration.batch.test_batch import project  # noqa: F401  (the fixture)

AGENT = "agent-batch-limits"
WAIT = 60.0  # how long a test waits for the run to reach a state: generous, never asserted


def script(work: Path, *steps: dict[str, Any]) -> None:
    """Replace the fixture's script (KERNEL_SHARD_MODEL points at it) and its notebook."""
    path = work.parent / "script.json"
    path.write_text(json.dumps({"name": "limits", "steps": list(steps)}))
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "shard", "display_name": "Shard", "language": "shard"}
    nb.cells = [
        nbformat.v4.new_code_cell("Say hello"),
        nbformat.v4.new_code_cell("Do the slow part"),
        nbformat.v4.new_code_cell("Never reached"),
    ]
    nbformat.write(nb, str(work / "tasks.ipynb"))


def start(work: Path, *options: str, **env_vars: str) -> subprocess.Popen[str]:
    env = {**os.environ, "KERNEL_SHARD_AGENT_ID": AGENT, **env_vars}
    argv = [sys.executable, "-m", "shard_kernel.cli", "batch", str(work / "tasks.ipynb")]
    return subprocess.Popen(
        [*argv, *options], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def events(work: Path) -> list[dict[str, Any]]:
    path = work.parent / "home" / "agents" / AGENT / "events.jsonl"
    try:
        lines = path.read_text().splitlines()
    except FileNotFoundError:
        return []
    return [json.loads(line) for line in lines if line.strip()]


def wait_for_event(work: Path, kind: str, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + WAIT
    while not any(e["type"] == kind for e in events(work)):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"no {kind} event"
        time.sleep(0.1)


def kernel_of(proc: subprocess.Popen[str]) -> int:
    (kernel,) = [
        p for p in psutil.Process(proc.pid).children() if "shard_kernel" in " ".join(p.cmdline())
    ]
    return kernel.pid


def finish(proc: subprocess.Popen[str]) -> tuple[int, str]:
    out, err = proc.communicate(timeout=WAIT)
    assert "Traceback" not in err, err
    return proc.returncode, out


def cells(work: Path) -> list[Any]:
    executed = nbformat.read(str(work / "tasks.out.ipynb"), as_version=4)
    nbformat.validate(executed)
    return executed.cells


HELLO = {"text": "Hello."}


def test_a_quiet_cell_ends_at_the_timeout(project: Path) -> None:  # noqa: F811
    sleep = marked_sleep()
    script(project, HELLO, {"tool_calls": [{"name": "bash", "input": {"command": sleep}}]})
    proc = start(project, "--timeout", "10", "--allow", "Bash(sleep:*)")
    wait_for_event(project, "tool_call", proc)
    kernel = kernel_of(proc)

    status, out = finish(proc)

    assert status == ExitCode.TIMED_OUT == 124, out
    first, second, third = cells(project)
    assert first.metadata["shard_batch"]["state"] == "ok"
    assert second.metadata["shard_batch"] == {
        "state": "timed out",
        "exit_code": 124,
        "note": second.metadata["shard_batch"]["note"],
    }
    note = second.outputs[-1]["text"]
    assert note.startswith("shard batch: timed out: it ran past --timeout 10s after ")
    assert "later cells did not run" in note
    assert "shard_batch" not in third.metadata
    assert "cell 2/3 timed out" in out
    assert not process_alive(kernel)
    assert not any(
        sleep in " ".join(p.info["cmdline"] or []) for p in psutil.process_iter(["cmdline"])
    )


WRITE = {"tool_calls": [{"name": "write", "input": {"path": "out.txt", "content": "x"}}]}


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_on_a_queued_ask_writes_the_notebook_and_stops_the_kernel(
    project: Path,  # noqa: F811
    sig: signal.Signals,
) -> None:
    script(project, HELLO, WRITE, {"text": "Wrote it."})
    proc = start(project, "--policy", "queue")
    wait_for_event(project, "permission_request", proc)
    kernel = kernel_of(proc)

    proc.send_signal(sig)
    status, out = finish(proc)

    assert status == ExitCode.INTERRUPTED == 130, out
    assert "cell 2/3 interrupted" in out
    first, second, _ = cells(project)
    assert first.metadata["shard_batch"]["state"] == "ok"
    assert second.metadata["shard_batch"]["state"] == "interrupted"
    note = second.outputs[-1]["text"]
    assert note.startswith(f"shard batch: interrupted: {sig.name} received after ")
    assert any(o.get("output_type") == "error" for o in second.outputs)  # the kernel's own word
    assert not (project / "out.txt").exists()
    assert not process_alive(kernel)


@pytest.mark.parametrize("where", ["flag", "metadata"])
def test_a_queued_ask_waits_only_the_permission_timeout(
    project: Path,  # noqa: F811
    where: str,
) -> None:
    script(project, HELLO, WRITE, {"text": "Wrote it."})
    if where == "metadata":  # the notebook asks for the queue policy itself
        nb = nbformat.read(str(project / "tasks.ipynb"), as_version=4)
        nb.metadata["shard"] = {"headless_policy": "queue"}
        nbformat.write(nb, str(project / "tasks.ipynb"))
    policy = ["--policy", "queue"] if where == "flag" else []
    proc = start(project, *policy, "--permission-timeout", "2")

    status, out = finish(proc)

    assert status == ExitCode.BLOCKED == 3, out
    _, second, third = cells(project)
    assert second.metadata["shard_batch"]["state"] == "blocked"
    assert second.outputs[-1]["text"].startswith(
        "shard batch: blocked: its permission ask (write) went unanswered for 2s: "
        "--policy queue waits for a client, and none can attach to a batch run after "
    )
    assert "shard_batch" not in third.metadata
    assert not (project / "out.txt").exists()


def test_a_dead_kernel_ends_the_run_with_its_reason(project: Path) -> None:  # noqa: F811
    sleep = marked_sleep()
    script(project, HELLO, {"tool_calls": [{"name": "bash", "input": {"command": sleep}}]})
    proc = start(project, "--allow", "Bash(sleep:*)")
    wait_for_event(project, "tool_call", proc)

    os.kill(kernel_of(proc), signal.SIGKILL)
    status, out = finish(proc)
    for left in psutil.process_iter(["cmdline"]):  # the killed kernel's tool outlives it
        if sleep in " ".join(left.info["cmdline"] or []):
            left.kill()

    assert status == ExitCode.KERNEL_DIED == 6, out
    assert "cell 2/3 kernel died" in out
    assert "the kernel was killed by SIGKILL" in out
    _, second, _ = cells(project)
    assert second.metadata["shard_batch"]["state"] == "kernel died"
    assert second.outputs[-1]["text"] == (
        "shard batch: kernel died: the kernel was killed by SIGKILL\n"
    )


def test_a_kernel_that_cannot_start_is_a_clear_error(project: Path) -> None:  # noqa: F811
    installed = project.parent / "jupyter_data_dir" / "kernels" / "shard" / "kernel.json"
    data = json.loads(installed.read_text())
    spec = project.parent / "jupyter_path" / "kernels" / "shard" / "kernel.json"
    spec.parent.mkdir(parents=True)  # JUPYTER_PATH comes before every other kernel folder
    spec.write_text(json.dumps({**data, "argv": ["/nonexistent/python", *data["argv"][1:]]}))
    proc = start(project, JUPYTER_PATH=str(spec.parents[2]))

    status, out = finish(proc)

    assert status == ExitCode.KERNEL_DIED, out
    assert out.splitlines()[0].startswith("the kernel did not start: ")
    assert "/nonexistent/python" in out
    nbformat.validate(nbformat.read(str(project / "tasks.out.ipynb"), as_version=4))


def test_a_bad_model_is_bad_input_as_in_shard_run(project: Path) -> None:  # noqa: F811
    proc = start(project, "--model", "nonsense")
    out, err = proc.communicate(timeout=WAIT)

    assert proc.returncode == ExitCode.BAD_INPUT == 2, out + err
    assert err.startswith("shard: error: bad model 'nonsense': expected one of "), err
    assert out == ""
    assert not (project / "tasks.out.ipynb").exists()  # checked before any kernel started
