"""The bundled `acp` child backend: any Agent Client Protocol agent as a subagent.

    backend: {acp: [opencode, acp]}                       # the command, as argv
    backend: {acp: "python3 my_agent.py"}                 # or one string (split like a shell)
    backend: {acp: {command: [opencode, acp], timeout: 30}}   # timeout: seconds to answer

Each run spawns the command in the child's workspace through the official SDK's client
connection (`acp.spawn_agent_process`, protocol version 1), initializes it (fs read and write
offered, no terminals), opens a session in the workspace and sends the prompt; the agent's
updates, permission requests and file requests are served by AcpChildHost (acp_host.py). The
turn's last message is the report. The child's environment is the gateway's without its
token. Every failure is the run's reason, in words: a command that is not found, an agent
that exits mid-turn (its exit code and the end of its stderr), one that does not answer
`initialize` or `session/new` within the timeout, an error it answers with. A deadline or
subagent_stop sends `session/cancel`, waits briefly, then the process is stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import shutil
from collections import deque
from pathlib import Path
from typing import Any, cast

from shard_kernel.gateway.jobs.backends import ChildTurn, TurnOutcome

__all__ = ["AcpBackend", "AcpRun", "acp_command"]

ANSWER_SECONDS = 60.0
"""How long `initialize` and `session/new` may take unless the spec says `timeout`."""
CANCEL_SECONDS = 5.0
"""How long a cancelled turn may take to end before its process is stopped."""
STDERR_LINES = 20
HIDDEN_VARIABLES = ("SHARD_GATEWAY_TOKEN", "SHARD_GATEWAY_URL", "JPY_SESSION_NAME")
_ENDED = {
    "end_turn": ("completed", None),
    "cancelled": ("stopped", "the ACP agent's turn was cancelled"),
    "max_tokens": ("failed", "the ACP agent ran out of tokens (max_tokens)"),
    "max_turn_requests": ("failed", "the ACP agent hit its request limit (max_turn_requests)"),
    "refusal": ("failed", "the ACP agent refused the task (refusal)"),
}


def acp_command(spec: Any) -> tuple[list[str], float] | str:
    """(argv, answer timeout) from a spec, or a sentence saying what is wrong with it."""
    timeout: Any = ANSWER_SECONDS
    if isinstance(spec, dict):
        mapping = cast(dict[str, Any], spec)
        unknown = sorted(set(mapping) - {"command", "timeout"})
        if unknown:
            return f"backend acp: unknown keys {unknown}; use command and timeout"
        timeout = mapping.get("timeout", ANSWER_SECONDS)
        spec = mapping.get("command")
    if isinstance(spec, str):
        try:
            spec = shlex.split(spec)
        except ValueError as exc:
            return f"backend acp: cannot split the command {spec!r}: {exc}"
    if not isinstance(spec, list) or not spec:
        return "backend acp: give the agent's command, e.g. {acp: [opencode, acp]}"
    items = cast(list[object], spec)
    if not all(isinstance(a, str) and a for a in items):
        return "backend acp: every word of the command must be a non-empty string"
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= 3600:
        return "backend acp: timeout must be a number of seconds in (0, 3600]"
    return [str(a) for a in items], float(timeout)


class AcpBackend:
    """Registered with the coordinator as `acp` (`install_jobs`)."""

    def __init__(self, *, trust_project: bool = False) -> None:
        self.trust_project = trust_project

    def check(self, spec: Any) -> str | None:
        parsed = acp_command(spec)
        if isinstance(parsed, str):
            return parsed
        program = parsed[0][0]
        if shutil.which(program) is None:
            return (
                f"backend acp: command not found: {program!r} (not an executable on the "
                "gateway's PATH)"
            )
        return None

    def start(self, turn: ChildTurn) -> AcpRun:
        return AcpRun(turn, trust_project=self.trust_project)


class AcpRun:
    def __init__(self, turn: ChildTurn, *, trust_project: bool) -> None:
        # lazily: the SDK (acp_host's import) loads with the first ACP run, not the gateway
        from shard_kernel.gateway.jobs.acp_host import AcpChildHost

        self.turn = turn
        self.host = AcpChildHost(turn, trust_project=trust_project)
        self._conn: Any = None
        self._session: str | None = None
        self._prompting: asyncio.Task[Any] | None = None
        self._stopped = False
        self._stderr: deque[str] = deque(maxlen=STDERR_LINES)

    async def stop(self) -> None:
        self._stopped = True
        if self._conn is not None and self._session is not None:
            with contextlib.suppress(Exception):
                await self._conn.cancel(session_id=self._session)
        task = self._prompting
        if task is not None:
            asyncio.get_running_loop().call_later(CANCEL_SECONDS, task.cancel)

    async def run(self) -> TurnOutcome:
        parsed = acp_command(self.turn.spec)
        if isinstance(parsed, str):
            return TurnOutcome("failed", parsed, "")
        argv, answer = parsed
        self.host.open()
        try:
            state, reason = await self._run(argv, answer)
            self.host.finish(_turn_end(state), None if state == "completed" else reason)
        except BaseException:  # a deadline: the turn ends aborted in the log too
            with contextlib.suppress(Exception):
                self.host.finish("aborted", "the run was cut short")
            raise
        finally:
            self.host.close()
        return TurnOutcome(
            state, reason, self.host.report, self.host.session_id, self.host.entry_id
        )

    async def _run(self, argv: list[str], answer: float) -> tuple[Any, str | None]:
        import acp  # lazily: the gateway's start does not load the SDK
        from acp.schema import ClientCapabilities, FileSystemCapabilities, Implementation

        cwd = Path(self.host.cwd)
        env = {k: v for k, v in os.environ.items() if k not in HIDDEN_VARIABLES}
        shown = shlex.join(argv)
        try:
            # The host serves what Shard offers the agent; terminals and elicitation are not
            # offered, and the SDK's router answers them method-not-found.
            client = cast("acp.Client", self.host)
            spawned = acp.spawn_agent_process(client, argv[0], *argv[1:], env=env, cwd=cwd)
            async with spawned as (conn, process):
                self._conn = conn
                drain = asyncio.create_task(self._drain(process.stderr))
                step = "initialize"
                try:
                    capabilities = ClientCapabilities(
                        fs=FileSystemCapabilities(read_text_file=True, write_text_file=True),
                        terminal=False,
                    )
                    await asyncio.wait_for(
                        conn.initialize(
                            protocol_version=acp.PROTOCOL_VERSION,
                            client_capabilities=capabilities,
                            client_info=Implementation(name="shard", version=_version()),
                        ),
                        answer,
                    )
                    step = "session/new"
                    session = await asyncio.wait_for(conn.new_session(cwd=str(cwd)), answer)
                    self._session = session.session_id
                    step = "session/prompt"
                    self.host.begin(self.turn.prompt)
                    blocks: list[Any] = [
                        acp.text_block(self.turn.note),
                        acp.text_block(self.turn.prompt),
                    ]
                    self._prompting = asyncio.ensure_future(
                        conn.prompt(session_id=session.session_id, prompt=blocks)
                    )
                    try:
                        response = await self._prompting
                    except asyncio.CancelledError:
                        if self._stopped and not _cancelling():
                            return "stopped", "stopped by subagent_stop"
                        raise
                    if self._stopped:
                        return "stopped", "stopped by subagent_stop"
                    state, reason = _ENDED.get(
                        str(response.stop_reason),
                        ("failed", f"the ACP agent stopped: {response.stop_reason}"),
                    )
                    return state, reason
                except TimeoutError:
                    return "failed", f"`{shown}` did not answer {step} within {answer:g}s"
                except ConnectionError:
                    code = await _exit_code(process)
                    tail = " | ".join(self._stderr)
                    said = f"; its stderr ended: {tail}" if tail else ""
                    where = "mid-turn" if step == "session/prompt" else f"during {step}"
                    return "failed", f"`{shown}` exited {where} (exit code {code}){said}"
                except acp.RequestError as exc:
                    return "failed", f"`{shown}` answered {step} with an error: {exc}"
                finally:
                    self._prompting = None
                    drain.cancel()
        except (FileNotFoundError, PermissionError, NotADirectoryError) as exc:
            return "failed", f"could not start the ACP agent `{shown}`: {exc}"

    async def _drain(self, stream: asyncio.StreamReader | None) -> None:
        """Keep the agent's stderr flowing (a full pipe would block it); the last lines stay
        for the reason a failed run gives."""
        if stream is None:
            return
        while line := await stream.readline():
            text = line.decode("utf-8", "replace").rstrip()
            if text:
                self._stderr.append(text[:300])
                self.turn.log.debug("shard: acp child %s: %s", self.host.agent_id, text)


def _turn_end(state: str) -> str:
    return {"completed": "completed", "stopped": "aborted"}.get(state, "error")


def _cancelling() -> bool:
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


async def _exit_code(process: Any) -> int | str:
    with contextlib.suppress(TimeoutError):
        return await asyncio.wait_for(process.wait(), CANCEL_SECONDS)
    return "unknown: still running"


def _version() -> str:
    from shard_core import __version__

    return __version__
