"""Terminals an agent drives like a person: `python3 -i` answers `print(x)`, Ctrl-C stops a
`sleep`, the screen is rendered by a terminal emulator (no escape bytes), bad ids and closed
terminals are clear errors, and no process outlives the agent — sandboxed or not."""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from shard_core.contracts import Tool, ToolContext
from shard_core.engine.config import ShardConfig
from shard_core.sdk import Agent, create_agent
from shard_core.types import TerminalDescriptor, ToolResult

BWRAP = shutil.which("bwrap") is not None


async def _agent(tmp_path: Path, mode: str = "off") -> Agent:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    config = ShardConfig.model_validate({"sandbox": {"mode": mode}})
    return await create_agent(cwd=workspace, model="scripted/demo", home=tmp_path / "home",
                              env={"PATH": os.environ["PATH"], "HOME": str(tmp_path)},
                              config=config)  # fmt: skip


async def _call(
    agent: Agent,
    tool_name: str,
    /,
    updates: list[ToolResult] | None = None,
    **input: object,
) -> ToolResult:
    tool = agent.session.tools.get(tool_name)
    assert isinstance(tool, Tool), f"no tool {tool_name}"
    cwd = Path(agent.session.config.cwd)
    env = {"PATH": os.environ["PATH"], "HOME": str(cwd.parent)}
    ctx = ToolContext(cwd=cwd, roots=[cwd], agent_id="agent-t", session_id="s", call_id="c",
                      env=env, on_update=None if updates is None else updates.append)  # fmt: skip
    return await tool.execute(dict(input), ctx)


def _children(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/task/{pid}/children").read_text().split()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is gone for our purposes
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split(") ", 1)[1][0] != "Z"


@pytest.mark.parametrize("mode", ["off", pytest.param("required", marks=pytest.mark.skipif(
    not BWRAP, reason="bubblewrap is not installed"))])  # fmt: skip
async def test_a_python_repl_is_driven_like_a_person_would(tmp_path: Path, mode: str) -> None:
    agent = await _agent(tmp_path, mode)
    try:
        opened = await _call(agent, "terminal_open", command="python3 -i -q", name="repl")
        assert not opened.is_error, opened.text
        tid = opened.details["terminal"]
        ready = await _call(agent, "terminal_wait", id=tid, pattern=r"^>>>\s*$", timeout=60)
        assert "matched" in ready.text, ready.text
        await _call(agent, "terminal_send", id="repl", text="x = 6*7")
        await _call(agent, "terminal_send", id=tid, text="print(x)")
        updates: list[ToolResult] = []
        answer = await _call(agent, "terminal_wait", updates, id=tid, pattern=r"^42\s*$",
                             timeout=30)  # fmt: skip
        assert "matched" in answer.text, answer.text
        card = answer.render[0]
        assert isinstance(card, TerminalDescriptor), "a terminal card, not text"
        assert (card.terminal_id, card.name, card.state) == (tid, "repl", "running")
        assert ">>> print(x)\n42" in card.screen
        assert card.server_terminal is None, "no server: the kernel's own pty, no Open in Lab"
        live = [u.render[0] for u in updates]
        assert live, "the card is updated while the wait runs (tool_update)"
        assert all(isinstance(c, TerminalDescriptor) and c.terminal_id == tid for c in live)
        screen = answer.text.split("--- screen ---", 1)[1]
        assert ">>> print(x)\n42" in screen
        assert "\x1b" not in answer.text, "the model reads the rendered screen, not escape bytes"
        listed = await _call(agent, "terminal_list")
        assert f"{tid}  repl  running  python3 -i -q" in listed.text
        closed = await _call(agent, "terminal_close", id=tid)
        assert "closed" in closed.text
        again = await _call(agent, "terminal_send", id=tid, text="print(1)")
        assert again.is_error
        assert "no terminal" in again.text
    finally:
        await agent.close()


async def test_ctrl_c_stops_a_sleep_and_the_shell_goes_on(tmp_path: Path) -> None:
    agent = await _agent(tmp_path)
    try:
        opened = await _call(agent, "terminal_open")
        tid = opened.details["terminal"]
        await _call(agent, "terminal_send", id=tid, text="export PS1='READY> '")
        await _call(agent, "terminal_wait", id=tid, pattern=r"READY>\s*$", timeout=30)
        await _call(agent, "terminal_send", id=tid, text="sleep 100; echo after-sleep")
        busy = await _call(agent, "terminal_wait", id=tid, quiet=0.5, timeout=10)
        assert "quiet for 0.5 s" in busy.text
        started = time.monotonic()
        await _call(agent, "terminal_send", id=tid, keys=["Ctrl-C"])
        await _call(agent, "terminal_send", id=tid, text="echo still-$((40+2))")
        back = await _call(agent, "terminal_wait", id=tid, pattern="still-42", timeout=30)
        assert "matched" in back.text
        assert time.monotonic() - started < 60
        screen_lines = back.text.split("--- screen ---", 1)[1].splitlines()
        assert "after-sleep" not in screen_lines, "the interrupted line never went on"
        assert "^C" in back.text
    finally:
        await agent.close()


async def test_bad_input_is_a_clear_error_and_the_agent_carries_on(tmp_path: Path) -> None:
    agent = await _agent(tmp_path)
    try:
        assert "no terminal 'nope'" in (await _call(agent, "terminal_read", id="nope")).text
        assert "`id` must name" in (await _call(agent, "terminal_wait")).text
        outside = await _call(agent, "terminal_open", cwd="/etc")
        assert outside.is_error
        assert "escapes the workspace" in outside.text
        opened = await _call(
            agent, "terminal_open", command="printf 'x%.0s' $(seq 1 200000); exit 3"
        )
        tid = opened.details["terminal"]
        ended = await _call(agent, "terminal_wait", id=tid, timeout=30)
        assert "the process ended (exit 3)" in ended.text
        assert "earlier characters of output were dropped" in ended.text or "x" in ended.text
        assert len(ended.text) < 200_000, "a flood is capped"
        dead = await _call(agent, "terminal_send", id=tid, text="echo hi")
        assert dead.is_error
        assert "has ended (exit 3)" in dead.text
        binary = await _call(agent, "terminal_open", command="head -c 3000000 /dev/urandom")
        flooded = await _call(agent, "terminal_wait", id=binary.details["terminal"], timeout=60)
        assert "the process ended (exit 0)" in flooded.text, flooded.text[:300]
        assert "earlier characters of output were dropped" in flooded.text
        assert len(flooded.text) < 200_000, "a binary flood is capped too"
        silent = await _call(agent, "terminal_open", command="sleep 30")
        waited = await _call(agent, "terminal_wait", id=silent.details["terminal"], pattern="never",
                             timeout=0.5)  # fmt: skip
        assert "timed out after 0.5 s without 'never'" in waited.text
        bad_key = await _call(
            agent, "terminal_send", id=silent.details["terminal"], keys=["Hyper-Q"]
        )
        assert "is not a key" in bad_key.text
        bad_regex = await _call(agent, "terminal_wait", id=tid, pattern="(")
        assert "bad pattern" in bad_regex.text
        many = [await _call(agent, "terminal_open", command="sleep 30") for _ in range(8)]
        assert many[-1].is_error
        assert "terminals are open already" in many[-1].text
    finally:
        await agent.close()


async def test_an_endless_flood_and_broken_escapes_leave_the_agent_in_charge(
    tmp_path: Path,
) -> None:
    agent = await _agent(tmp_path)
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB
    try:
        flood = await _call(agent, "terminal_open", command="cat /dev/urandom", name="flood")
        fid = flood.details["terminal"]
        never_quiet = await _call(agent, "terminal_wait", id=fid, quiet=1, timeout=3)
        assert "timed out after 3 s" in never_quiet.text, never_quiet.text[:300]
        assert len(never_quiet.text) < 200_000, "what an endless flood returns is capped"
        read = await _call(agent, "terminal_read", id=fid)
        assert not read.is_error
        assert read.details["state"] == "running"
        # an escape sequence pyte fails on (5,000 digits: past int()'s limit) and a title
        # that never ends: each dropped, what follows still on the screen
        bomb = "print('\\x1b[' + '1' * 5000 + 'm' + 'after-' + 'bomb', flush=True)"
        csi = await _call(agent, "terminal_open", command=f'python3 -c "{bomb}"; sleep 100')
        seen = await _call(agent, "terminal_wait", id=csi.details["terminal"],
                           pattern="after-bomb", timeout=20)  # fmt: skip
        assert "matched 'after-bomb'" in seen.text, seen.text[-500:]
        title = (
            "printf '\\033]0;'; head -c 1000000 /dev/zero | tr '\\0' y; echo; echo after-$((1+1))"
        )
        osc = await _call(agent, "terminal_open", command=f"{title}; sleep 100")
        shown = await _call(agent, "terminal_wait", id=osc.details["terminal"],
                            pattern="after-2", timeout=30)  # fmt: skip
        assert "matched 'after-2'" in shown.text, shown.text[-500:]
        closed = await _call(agent, "terminal_close", id=fid)
        assert "closed" in closed.text
        grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before
        assert grown < 300_000, f"the floods grew the agent's memory by {grown} KiB"
    finally:
        await agent.close()


async def test_closing_the_agent_ends_every_terminal_process(tmp_path: Path) -> None:
    agent = await _agent(tmp_path)
    opened = await _call(agent, "terminal_open", command="sleep 1000 & sleep 1000; wait")
    shell_pid = opened.details["pid"]
    await _call(agent, "terminal_wait", id=opened.details["terminal"], quiet=0.3, timeout=5)
    children = [
        int(p) for p in Path(f"/proc/{shell_pid}/task/{shell_pid}/children").read_text().split()
    ]
    assert children, "the shell started its sleeps"
    await agent.close()
    assert not any(_alive(pid) for pid in [shell_pid, *children])


def test_a_killed_agent_process_leaves_no_terminal_behind(tmp_path: Path) -> None:
    """The agent's process is SIGKILLed (no disposer runs): the pty closes, the shell gets
    SIGHUP and ends with what it started in the foreground."""
    script = tmp_path / "agent.py"
    script.write_text(
        textwrap.dedent(f"""
        import asyncio, os, sys
        sys.path.insert(0, {str(Path(__file__).resolve().parents[3])!r})
        from tests.integration.terminals.test_terminal_tools import _agent, _call
        from pathlib import Path
        async def main():
            agent = await _agent(Path({str(tmp_path)!r}))
            opened = await _call(agent, "terminal_open")
            tid = opened.details["terminal"]
            await _call(agent, "terminal_send", id=tid, text="sleep 1000")
            await _call(agent, "terminal_wait", id=tid, quiet=0.5, timeout=10)
            print(opened.details["pid"], flush=True)
            await asyncio.sleep(1000)
        asyncio.run(main())
    """)
    )
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    shell_pid = int(proc.stdout.readline())
    sleeper = [
        int(p) for p in Path(f"/proc/{shell_pid}/task/{shell_pid}/children").read_text().split()
    ]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    proc.stdout.close()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and any(_alive(p) for p in [shell_pid, *sleeper]):
        time.sleep(0.1)
    survivors = [p for p in [shell_pid, *sleeper] if _alive(p)]
    for pid in survivors:  # never leave one behind, even when the test fails
        os.kill(pid, signal.SIGKILL)
    assert survivors == []


async def test_each_line_sent_is_judged_like_a_bash_command(tmp_path: Path) -> None:
    """Through the gate (headless deny): `Bash(…)` rules decide the typed lines; a line no rule
    allows, and a `Bash(rm:*)` deny, never reach the shell."""
    from shard_core.contracts import ExtensionApi
    from shard_core.protocol.events import ToolResultEvent
    from tests.fixtures.function_provider import FunctionProvider, scripted

    workspace = tmp_path / "ws"
    workspace.mkdir()
    canary = tmp_path / "canary"  # outside the workspace, never in a private /tmp
    calls = [
        ("terminal_open", {"command": "bash --norc -i", "name": "sh"}),
        ("terminal_send", {"id": "sh", "text": "echo allowed-$((6*7))"}),
        ("terminal_send", {"id": "sh", "text": f"rm -rf {canary}"}),
        ("terminal_send", {"id": "sh", "text": f"touch {workspace}/unruled"}),
        ("terminal_wait", {"id": "sh", "pattern": "allowed-42", "timeout": 30}),
    ]
    steps = [{"tool_calls": [call]} for call in calls]
    provider = FunctionProvider(scripted(*steps))

    def extension(api: ExtensionApi) -> None:
        api.register_provider("fn", lambda _model: provider)

    canary.mkdir()
    agent = await create_agent(
        cwd=workspace, model="fn/any", home=tmp_path / "home", env={"PATH": os.environ["PATH"]},
        config=ShardConfig.model_validate({"sandbox": {"mode": "off"}}),
        allow=["Bash(bash --norc -i)", "Bash(echo:*)"], deny=["Bash(rm:*)"],
        headless_policy="deny", extensions=[("test.fn", extension)],
    )  # fmt: skip
    try:
        events = [e async for e in agent.prompt("drive the terminal")]
    finally:
        await agent.close()
    results = [e.result for e in events if isinstance(e, ToolResultEvent)]
    assert [r.is_error for r in results] == [False, False, True, True, False], [
        r.text for r in results
    ]
    assert "matched 'allowed-42'" in results[4].text
    assert canary.exists(), "the denied rm never ran"
    assert not (workspace / "unruled").exists()


async def test_status_lists_the_terminals_with_their_state(tmp_path: Path) -> None:
    """`/status` has a terminals row, which the terminals capability declares (not the kernel)."""
    from shard_kernel.slash import status_table
    from tests.fixtures.status_host import StatusHost

    agent = await _agent(tmp_path)
    try:
        host = StatusHost(agent)
        assert "| terminals | none |" in status_table(host)  # type: ignore[arg-type]
        opened = await _call(agent, "terminal_open", command="cat", name="echoer")
        short = await _call(agent, "terminal_open", command="exit 3", name="brief")
        await _call(agent, "terminal_wait", id=short.details["terminal"], quiet=0.3, timeout=5)
        row = next(line for line in status_table(host).splitlines() if "| terminals |" in line)  # type: ignore[arg-type]
        assert f"{opened.details['terminal']} echoer (running: cat)" in row
        assert f"{short.details['terminal']} brief (exited (3): exit 3)" in row
    finally:
        await agent.close()


async def test_what_a_terminal_shows_the_model_is_redacted_like_bash_output(tmp_path: Path) -> None:
    """A secret the agent's environment holds, printed by a terminal's program (the terminal's
    own environment has none of them, so here from a file): its result, its live updates and
    the session log carry `[secret]` instead."""
    from shard_core.contracts import ExtensionApi
    from shard_core.protocol.events import ToolResultEvent, ToolUpdateEvent
    from tests.fixtures.function_provider import FunctionProvider, scripted

    secret = "hunter2-Deploy-7781-xq"
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text(f"deploy with {secret}\n")
    calls = [
        ("terminal_open", {"command": "sleep 0.5; cat notes.txt; sleep 30", "name": "leak"}),
        ("terminal_wait", {"id": "leak", "pattern": "deploy with", "timeout": 30}),
        ("terminal_read", {"id": "leak"}),
    ]
    provider = FunctionProvider(scripted(*[{"tool_calls": [call]} for call in calls]))

    def extension(api: ExtensionApi) -> None:
        api.register_provider("fn", lambda _model: provider)

    agent = await create_agent(
        cwd=workspace, model="fn/any", home=tmp_path / "home",
        env={"PATH": os.environ["PATH"], "DEPLOY_TOKEN": secret},
        config=ShardConfig.model_validate({"sandbox": {"mode": "off"}}),
        allow=["Bash(sleep:*)", "Bash(cat:*)"], headless_policy="deny",
        extensions=[("test.fn", extension)],
    )  # fmt: skip
    try:
        events = [e async for e in agent.prompt("read the notes in a terminal")]
        log = agent.session.store.path.read_text()
    finally:
        await agent.close()
    results = [e.result for e in events if isinstance(e, ToolResultEvent)]
    assert "matched 'deploy with'" in results[1].text, results[1].text
    shown = [r.model_dump_json() for r in results]
    shown += [e.partial.model_dump_json() for e in events if isinstance(e, ToolUpdateEvent)]
    assert all(secret not in text for text in shown)
    assert "deploy with [secret]" in results[2].text or "deploy with [secret]" in results[1].text
    assert secret not in log
    assert "[secret]" in log
