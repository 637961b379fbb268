"""Agent kernels forked from the server's template (gateway/forked.py, forkserver.py), on real
servers and kernels: each forked agent is exactly its own process (environment, folder, session,
fds, parent poller, command line) and the agent a spawned kernel would be; a kernel forked after
another agent ran a turn starts from nothing of it; interrupt, restart and shutdown work; a
template that dies leaves new agents to the normal spawn; nothing is left behind; and what the
provisioner forks and the template refuses."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from shard_kernel.gateway.forked import ForkingProvisioner, ForkTemplate, TemplateError
from tests.fixtures.pool_probe import PROCESS_KEYS
from tests.integration.gateway.conftest import Server, Servers, alive, api, body
from tests.integration.gateway.test_pool import MODEL, comparable, install_probe, probe

SPAWN = ("--set", "WarmableKernelManager.fork_kernels=False")
FORK = ("--set", "WarmableKernelManager.fork_kernels=True")  # off by default (forked.py)


def template_of(server: Server) -> int:
    """The pid of the server's fork template (a child of the server)."""
    for pid in server.kernels():
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if argv[1:3] == [b"-m", b"shard_kernel.forkserver"] and parent == server.proc.pid:
            return pid
    raise AssertionError("no fork template under the server")


def fd_targets(pid: int) -> set[str]:
    found = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            found.add(os.readlink(fd))
        except OSError:
            continue
    return found


async def report_of(server: Server, kernel_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    answer = await probe(server, kernel_id)
    return answer, json.loads(answer["results"]["probe"]["text"])


async def wait_gone(pid: int, within: float = 60.0) -> bool:
    deadline = time.monotonic() + within
    while alive(pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    return not alive(pid)


async def test_two_forked_agents_are_exactly_their_own(servers: Servers, workspace: Path) -> None:
    install_probe(servers)
    forking = servers.start(*FORK, env=MODEL)
    spawning = servers.start(*SPAWN, env=MODEL)
    other = workspace.parent / "other"
    other.mkdir()
    one = {"cwd": str(workspace), "model": "probe/one", "mode": "build"}
    first = body(await api(forking, "POST", "/shard/api/agents", one))
    second = body(
        await api(forking, "POST", "/shard/api/agents", {"cwd": str(other), "model": "probe/two"})
    )
    spawned = body(await api(spawning, "POST", "/shard/api/agents", one))
    template = template_of(forking)
    template_fds = fd_targets(template)
    answers = {}
    for name, server, agent in (
        ("first", forking, first), ("second", forking, second), ("spawned", spawning, spawned)
    ):  # fmt: skip
        answer, report = await report_of(server, agent["kernel_id"])
        answers[name] = (answer, report)
        env = report["env"]
        assert env["KERNEL_SHARD_AGENT_ID"] == agent["id"]
        assert report["parent_poller"] is True, report  # it ends when its parent does
        assert env["JPY_PARENT_PID"] == str(report["ppid"]) == str(report["parent_handle"])
        assert report["sid"] == report["pid"]  # its own session (interrupts reach its group)
        connection = report["argv"][2]
        assert report["cmdline"] == [sys.executable, "-m", "shard_kernel", "-f", connection]
        assert report["orig_argv"] == report["cmdline"]
        assert report["argv"][1:] == ["-f", connection]
        assert report["argv"][0].endswith("shard_kernel/__main__.py")
    first_report, second_report = answers["first"][1], answers["second"][1]
    spawned_report = answers["spawned"][1]
    assert (first_report["forked"], second_report["forked"], spawned_report["forked"]) == (
        True, True, False
    )  # fmt: skip
    assert first_report["ppid"] == second_report["ppid"] == template
    assert spawned_report["ppid"] == spawning.proc.pid
    # each has its own create's environment and folder, nothing of the other's
    assert first_report["env"]["KERNEL_SHARD_MODEL"] == "probe/one"
    assert second_report["env"]["KERNEL_SHARD_MODEL"] == "probe/two"
    assert first_report["env"]["KERNEL_SHARD_CWD"] == str(workspace.resolve())
    assert second_report["env"]["KERNEL_SHARD_CWD"] == str(other.resolve())
    assert first_report["env"]["SHARD_HOME"] == servers.env["SHARD_HOME"]
    assert set(first_report["env"]) - set(spawned_report["env"]) == set()
    # no fd of the template's (its socket to the server, its wake-up pipe) in a kernel
    for report in (first_report, second_report):
        kernel_fds = fd_targets(report["pid"])
        shared = {t for t in kernel_fds & template_fds if t.startswith(("socket:", "pipe:"))}
        assert shared == set(), shared
    # and the forked agent is the agent the spawned kernel is
    first_answer, spawned_answer = answers["first"][0], answers["spawned"][0]
    for report in (first_report, spawned_report):
        report["env"]["JPY_PARENT_PID"] = "<parent>"
        for key in (*PROCESS_KEYS, "forked", "kernels_of_parent"):
            del report[key]
    first_answer["results"]["probe"]["text"] = json.dumps(first_report)
    spawned_answer["results"]["probe"]["text"] = json.dumps(spawned_report)
    assert comparable(first_answer, first, forking) == comparable(spawned_answer, spawned, spawning)

    kernels = forking.kernels() + spawning.kernels()
    assert servers.stop_all() == []
    assert not [pid for pid in kernels if alive(pid)]


async def test_a_kernel_forked_after_a_turn_starts_from_nothing_of_it(
    servers: Servers, workspace: Path
) -> None:
    install_probe(servers)
    server = servers.start(*FORK, env=MODEL)
    before = body(await api(server, "POST", "/shard/api/agents", {"cwd": str(workspace)}))
    first_answer, _ = await report_of(server, before["kernel_id"])
    second_answer, _ = await report_of(server, before["kernel_id"])
    assert second_answer["messages"] > first_answer["messages"]  # the agent has a history
    after = body(await api(server, "POST", "/shard/api/agents", {"cwd": str(workspace)}))
    answer, report = await report_of(server, after["kernel_id"])
    assert report["forked"] is True
    assert answer["messages"] == first_answer["messages"]  # its first request: no one else's
    assert answer["system"] == first_answer["system"]
    kernels = server.kernels()
    assert server.stop() == []
    assert not [pid for pid in kernels if alive(pid)]


async def test_interrupt_restart_and_shutdown_of_a_forked_kernel(
    servers: Servers, workspace: Path
) -> None:
    install_probe(servers)
    server = servers.start(*FORK, env=MODEL)
    agent = body(await api(server, "POST", "/shard/api/agents", {"cwd": str(workspace)}))
    kernel_id = agent["kernel_id"]
    _, report = await report_of(server, kernel_id)
    assert report["forked"] is True
    pid = report["pid"]

    # SIGINT to its process group: an interrupt, which the kernel lives through
    interrupted = await api(server, "POST", f"/api/kernels/{kernel_id}/interrupt")
    assert interrupted.code == 204, interrupted.body
    _, again = await report_of(server, kernel_id)
    assert again["pid"] == pid

    restarted = await api(server, "POST", f"/api/kernels/{kernel_id}/restart")
    assert restarted.code == 200, restarted.body
    assert await wait_gone(pid)
    _, fresh = await report_of(server, kernel_id)
    assert fresh["forked"] is True
    assert fresh["pid"] != pid
    assert fresh["env"]["KERNEL_SHARD_AGENT_ID"] == agent["id"]

    # a kernel that dies is noticed and restarted (the restarter polls the forked process)
    os.kill(fresh["pid"], signal.SIGKILL)
    assert await wait_gone(fresh["pid"])
    connection = fresh["argv"][2].encode()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not [
        p for p in server.kernels() if p not in (pid, fresh["pid"]) and alive(p)
        and connection in Path(f"/proc/{p}/cmdline").read_bytes()
    ]:  # fmt: skip
        await asyncio.sleep(0.2)
    _, revived = await report_of(server, kernel_id)
    assert revived["pid"] not in (pid, fresh["pid"])

    stopped = await api(server, "DELETE", f"/shard/api/agents/{agent['id']}")
    assert body(stopped)["runtime_state"] == "stopped"
    assert await wait_gone(revived["pid"])
    template = template_of(server)
    kernels = server.kernels()
    left = server.stop()
    assert left == [], [(p, p == template, p in kernels) for p in left]
    assert not alive(template)


async def test_a_dead_template_leaves_agents_to_the_normal_spawn(
    servers: Servers, workspace: Path
) -> None:
    install_probe(servers)
    server = servers.start(*FORK, env=MODEL)
    forked = body(await api(server, "POST", "/shard/api/agents", {"cwd": str(workspace)}))
    _, report = await report_of(server, forked["kernel_id"])
    template = template_of(server)
    assert report["ppid"] == template
    os.kill(template, signal.SIGKILL)
    assert await wait_gone(template)
    assert await wait_gone(report["pid"])  # its kernels' parent poller ends them

    spawned = body(await api(server, "POST", "/shard/api/agents", {"cwd": str(workspace)}))
    _, fresh = await report_of(server, spawned["kernel_id"])
    assert fresh["forked"] is False
    assert fresh["ppid"] == server.proc.pid
    assert "spawn instead of forking" in server.log.read_text()
    kernels = server.kernels()
    assert server.stop() == []
    assert not [pid for pid in kernels if alive(pid)]


async def test_only_the_shard_kernelspec_command_with_the_templates_imports_forks() -> None:
    template = ForkTemplate()
    try:
        command = [sys.executable, "-m", "shard_kernel", "-f", "/tmp/kernel-x.json"]
        env = dict(os.environ)
        refusal = ForkingProvisioner._refusal  # pyright: ignore[reportPrivateUsage]
        assert refusal(template, command, {"env": env}) is None
        other = ["/usr/bin/python3", *command[1:]]
        assert "interpreter" in str(refusal(template, other, {"env": env}))
        stock = [sys.executable, "-m", "ipykernel_launcher", "-f", command[-1]]
        assert "kernelspec" in str(refusal(template, stock, {"env": env}))
        moved = {**env, "PYTHONPATH": "/elsewhere"}
        assert "PYTHON" in str(refusal(template, command, {"env": moved}))
        piped = {"env": env, "stdout": subprocess.PIPE}
        assert "streams" in str(refusal(template, command, piped))
        # the template itself refuses what a bind would (a folder that is not one), and, retired,
        # forks no more
        with pytest.raises(TemplateError, match="cwd"):
            await template.fork(["-f", command[-1]], env, "/no/such/folder")
        template.retire()
        with pytest.raises(TemplateError, match=r"retired|ended"):
            await template.fork(["-f", command[-1]], env, os.getcwd())
        assert await wait_gone(template.pid)  # retired with no kernel left: it exits
    finally:
        await template.close()
    assert template.proc.returncode == 0
