"""DemoRunner: copy the buggy project, start a real `shard` kernel, stream its turn, verify."""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any, TextIO

from pydantic import TypeAdapter

from shard_core.protocol.events import Event, TurnEndEvent
from shard_core.protocol.link import AgentLink, EventsReady
from shard_core.types.base import DEFERRED
from shard_kernel.agent_client import ClientTransport
from shard_kernel.denials import DenialWatch
from shard_kernel.exit_codes import ExitCode, for_turn
from shard_kernel.local_kernels import private_kernel_manager
from shard_kernel.terminal.render import TerminalRenderer

PROJECT = Path(__file__).resolve().parent / "project"
PROMPT = (
    "The tests in this project fail. Find the bug, fix it with the smallest change, "
    "and run the tests with `python -m pytest -q` to show they pass."
)
ALLOW = ("Edit(**)", "Bash(python -m pytest:*)")
EVENTS = TypeAdapter(Event, config=DEFERRED)


def prepare_workspace() -> Path:
    workspace = Path(tempfile.mkdtemp(prefix="shard-demo-"))
    for item in PROJECT.iterdir():
        if item.suffix == ".py" or item.name == "pytest.ini":  # its tests, its own settings
            shutil.copy(item, workspace / item.name)
    return workspace


def kernel_env(workspace: Path, model: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env["KERNEL_SHARD_AGENT_ID"] = f"agent-demo-{uuid.uuid4().hex[:8]}"
    env["KERNEL_SHARD_CWD"] = str(workspace)
    env["KERNEL_SHARD_ALLOW"] = "\n".join(ALLOW)
    env["KERNEL_SHARD_RULES_FROM"] = "the demo's rules"
    if model:
        env["KERNEL_SHARD_MODEL"] = model
    # The agent's bash runs `python`: make it this environment's interpreter.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


class DemoRunner:
    def __init__(self, out: TextIO, *, model: str | None = None, timeout: float = 600) -> None:
        self.out = out
        self.model = model
        self.timeout = timeout
        self.render = TerminalRenderer(out)
        self._heard = time.monotonic()

    def say(self, text: str) -> None:
        print(self.render.style(text, "bold"), file=self.out, flush=True)

    def run(self, keep: bool = False) -> int:
        workspace = prepare_workspace()
        self.say(f"shard demo: fixing a small buggy project in {workspace}")
        print(self.render.style(f"allowed by rule: {', '.join(ALLOW)}", "dim"), file=self.out)
        with private_kernel_manager() as km:
            km.start_kernel(env=kernel_env(workspace, self.model))
            kc = km.client()
            try:
                kc.start_channels()
                kc.wait_for_ready(timeout=120)
                self.say(f"> {PROMPT}")
                status = self._turn(kc)
            finally:
                kc.stop_channels()
                km.shutdown_kernel(now=False)
        passed = self._verify(workspace)
        if not keep:
            shutil.rmtree(workspace, ignore_errors=True)
        if status == ExitCode.OK and not passed:
            return ExitCode.FAILED  # the agent's word is not the proof
        return status

    def _turn(self, kc: Any) -> ExitCode:
        """The turn's exit status, as `shard run` would give it. The demo attaches as an
        observer, so a gap in the event stream is synced and every event is shown."""
        self._heard = time.monotonic()
        link = AgentLink(f"demo-{uuid.uuid4().hex[:8]}", role="observer", label="shard demo")
        transport = ClientTransport(kc, link, comm_prefix="demo")
        link.attach()
        transport.flush()
        msg_id = kc.execute(PROMPT)
        denials, end, answered = DenialWatch(), None, False
        while not answered or link.syncing:
            try:
                msg = kc.get_iopub_msg(timeout=min(self.timeout, 1.0))
            except queue.Empty:
                if link.handle_timer():  # a sync that never came: go on without it
                    transport.flush()
                if (time.monotonic() - self._heard) < self.timeout:
                    continue
                print(self.render.style(f"✗ no word from the agent for {self.timeout:g}s",
                                        "red"), file=self.out)  # fmt: skip
                return ExitCode.TIMED_OUT
            self._heard = time.monotonic()
            outputs = transport.feed(msg)
            if outputs is not None:
                for output in outputs:
                    for item in output.events if isinstance(output, EventsReady) else ():
                        event = EVENTS.validate_python(item)
                        self.render(event)
                        denials(event)
                        end = event if isinstance(event, TurnEndEvent) else end
                continue
            kind, content = msg["header"]["msg_type"], msg["content"]
            if kind == "error":
                print(self.render.style(f"✗ {content['evalue']}", "red"), file=self.out)
            elif kind == "status" and content["execution_state"] == "idle" and _for(msg, msg_id):
                answered = True
                link.catch_up()  # a lost tail shows no gap: ask once for what followed
                transport.flush()
        link.detach()
        transport.flush()
        reply = kc.get_shell_msg(timeout=self.timeout)
        while reply["parent_header"].get("msg_id") != msg_id:
            reply = kc.get_shell_msg(timeout=self.timeout)
        if end is not None:
            return for_turn(end.reason, blocked=denials.blocked)
        return ExitCode.OK if reply["content"]["status"] == "ok" else ExitCode.FAILED

    def _verify(self, workspace: Path) -> bool:  # the agent's word is not the proof
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
            cwd=workspace,
            capture_output=True,
            text=True,
            check=False,
        )
        tail = (result.stdout.strip().splitlines() or ["(no output)"])[-1]
        tone = "green" if result.returncode == 0 else "red"
        self.say("checking the project's tests myself:")
        print(self.render.style(f"  {tail}", tone), file=self.out, flush=True)
        return result.returncode == 0


def _for(msg: dict[str, Any], msg_id: str) -> bool:
    return msg["parent_header"].get("msg_id") == msg_id
