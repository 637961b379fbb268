"""BatchRun: execute a notebook whose kernel is `shard` through nbclient, unattended.

No client attaches, so every permission ask is decided by the agent's headless policy at once
(`queue`: the ask waits up to the permission timeout, then the run stops as blocked). Each cell
is a prompt, run by `batch_cells.CellRun` on nbclient's async client within `--timeout`; the run
stops at the first cell that fails, times out, is interrupted (SIGINT, SIGTERM) or loses its
kernel, and the executed notebook is written whatever happened, each cell marked with its
outcome. A cell whose work denials blocked is reported `blocked`, and the run goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import nbformat
from jupyter_core.utils import ensure_async
from nbclient import NotebookClient

from shard_core.engine.state import shard_home
from shard_core.providers.models import parse_model
from shard_core.types.errors import ConfigError
from shard_kernel.batch_cells import CellRun, EventTail, Limits, Outcome, StopSignals
from shard_kernel.exit_codes import ExitCode
from shard_kernel.local_kernels import private_async_kernel_manager
from shard_kernel.terminal.escape import terminal_safe


@dataclass
class BatchOptions:
    notebook: Path
    output: Path | None = None
    policy: str | None = None
    timeout: float = 1800.0
    permission_timeout: float | None = None
    model: str | None = None
    allow: list[str] = field(default_factory=list[str])
    deny: list[str] = field(default_factory=list[str])
    cwd: Path | None = None
    trust_project: bool = False
    agent_definition: str | None = None


class Progress:
    def __init__(self, total: int, out: TextIO) -> None:
        self.total = total
        self.out = out
        self.tty = out.isatty()

    def start(self, index: int, cell: Any) -> None:
        if self.tty:
            first = terminal_safe((cell.source.strip().splitlines() or [""])[0][:60])
            self.out.write(f"\r[{self._bar(index)}] cell {index + 1}/{self.total}: {first}")
            self.out.flush()

    def done(self, index: int, outcome: Outcome) -> None:
        prefix = "\r" if self.tty else ""
        line = f"cell {index + 1}/{self.total} {outcome.state} ({outcome.seconds:.1f}s)"
        if outcome.note:
            line += f": {terminal_safe(outcome.note)}"  # kernel and model text: untrusted
        self.out.write(f"{prefix}{line}\n")
        self.out.flush()

    def _bar(self, index: int) -> str:
        width = 20
        filled = int(width * index / max(1, self.total))
        return "#" * filled + "-" * (width - filled)


def kernel_env(opts: BatchOptions, metadata: dict[str, Any]) -> dict[str, str]:
    env = dict(os.environ)
    shard_meta = metadata.get("shard", {}) if isinstance(metadata.get("shard"), dict) else {}
    cwd = opts.cwd or opts.notebook.resolve().parent
    env["KERNEL_SHARD_CWD"] = str(cwd)
    env.setdefault("KERNEL_SHARD_AGENT_ID", f"agent-batch-{uuid.uuid4().hex[:8]}")
    settings = {
        "MODEL": opts.model or shard_meta.get("model"),
        "HEADLESS_POLICY": opts.policy or shard_meta.get("headless_policy"),
        "PERMISSION_TIMEOUT": str(opts.permission_timeout) if opts.permission_timeout else None,
        "ALLOW": "\n".join(opts.allow or shard_meta.get("allow", [])) or None,
        "DENY": "\n".join(opts.deny or shard_meta.get("deny", [])) or None,
        "MODE": shard_meta.get("mode"),
        "TRUST_PROJECT": "1" if opts.trust_project else None,
        "AGENT_DEFINITION": opts.agent_definition,
        "RULES_FROM": _rules_from(opts, shard_meta),
    }
    for key, value in settings.items():
        if value:
            env[f"KERNEL_SHARD_{key}"] = str(value)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def _rules_from(opts: BatchOptions, shard_meta: dict[str, Any]) -> str:
    """How the agent's explanations name the rules this run gives it."""
    flags = "shard batch --allow/--deny"
    meta_allow = not opts.allow and shard_meta.get("allow")
    if not (meta_allow or (not opts.deny and shard_meta.get("deny"))):
        return flags
    metadata = f"notebook metadata of {opts.notebook.name}"
    return metadata if not (opts.allow or opts.deny) else f"{flags} and {metadata}"


def run_batch(opts: BatchOptions, out: TextIO) -> int:
    """Run the notebook; the exit status is the worst cell's (ExitCode)."""
    from shard_kernel.registrations import provider_specs  # runs extensions: when asked

    nb = _read(opts)
    output = opts.output or opts.notebook.with_name(opts.notebook.stem + ".out.ipynb")
    env = kernel_env(opts, dict(nb.metadata))
    if env.get("KERNEL_SHARD_MODEL"):
        parse_model(
            env["KERNEL_SHARD_MODEL"], provider_specs()
        )  # a bad one is bad input, as in `shard run`
    status = asyncio.run(_run(opts, nb, env, output, out))
    print(f"wrote {output}", file=out)
    for line in start_notes(env["KERNEL_SHARD_AGENT_ID"]):  # e.g. project files left out
        print(f"note: {terminal_safe(line)}", file=out)
    return status


def _read(opts: BatchOptions) -> Any:
    if opts.timeout <= 0:
        raise ConfigError(f"--timeout must be a positive number of seconds, not {opts.timeout:g}")
    if not opts.notebook.is_file():
        raise ConfigError(f"no notebook at {opts.notebook}")
    try:
        nb = nbformat.read(str(opts.notebook), as_version=4)
    except Exception as exc:
        raise ConfigError(f"{opts.notebook} is not a readable notebook: {exc}") from None
    kernel = nb.metadata.get("kernelspec", {}).get("name")
    if kernel != "shard":
        raise ConfigError(f"{opts.notebook} uses kernel {kernel!r}; shard batch runs 'shard'")
    return nb


async def _run(opts: BatchOptions, nb: Any, env: dict[str, str], output: Path, out: TextIO) -> int:
    """Start the kernel, run the cells until one stops the run, write the notebook, stop the
    kernel — in that order, so a signal or a dead kernel still leaves what ran on disk."""
    signals = StopSignals()
    signals.install()
    try:
        async with private_async_kernel_manager() as km:
            client = NotebookClient(
                nb,
                km=km,
                timeout=None,
                resources={"metadata": {"path": str(opts.notebook.resolve().parent)}},
            )
            try:
                status = await _cells(client, opts, env, signals, out)
            finally:
                nbformat.write(nb, str(output))
            with contextlib.suppress(Exception):  # a dead kernel: the manager's exit cleans up
                await km.shutdown_kernel()
            await _stop_channels(client)
            return status
    finally:
        signals.remove()


async def _cells(
    client: NotebookClient, opts: BatchOptions, env: dict[str, str], signals: StopSignals,
    out: TextIO,
) -> int:  # fmt: skip
    try:
        started = await _start(client, env, signals)
    except Exception as exc:  # the kernelspec's command missing, the kernel exiting at once
        print(
            f"the kernel did not start: {terminal_safe(str(exc) or type(exc).__name__)}", file=out
        )
        return ExitCode.KERNEL_DIED
    if not started:
        print(f"stopped: {signals.received} received while the kernel started", file=out)
        return ExitCode.INTERRUPTED
    tail = EventTail(shard_home() / "agents" / env["KERNEL_SHARD_AGENT_ID"] / "events.jsonl")
    ask_timeout = (opts.permission_timeout or 60.0) if _policy(opts, env) == "queue" else None
    runner = CellRun(client, tail, Limits(opts.timeout, ask_timeout), signals)
    progress = Progress(len(client.nb.cells), out)
    worst = ExitCode.OK
    for index, cell in enumerate(client.nb.cells):
        if cell.cell_type != "code" or not cell.source.strip():
            continue
        progress.start(index, cell)
        outcome = await runner.run(index, cell, client.code_cells_executed + 1)
        mark(cell, outcome)
        progress.done(index, outcome)
        worst = max(worst, outcome.code, key=SEVERITY.index)
        if outcome.stop:
            break
    return worst


async def _start(client: NotebookClient, env: dict[str, str], signals: StopSignals) -> bool:
    """Start the kernel and its client; False when a signal came first."""

    async def start() -> None:
        client.reset_execution_trackers()
        await client.async_start_new_kernel(env=env)
        await client.async_start_new_kernel_client()
        assert client.kc is not None
        info = await client.async_wait_for_reply(await ensure_async(client.kc.kernel_info()))
        if info is not None:
            client.nb.metadata["language_info"] = info["content"]["language_info"]

    task = asyncio.ensure_future(start())
    stopping = asyncio.ensure_future(signals.event.wait())
    try:
        await asyncio.wait({task, stopping}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
    if not task.done():
        task.cancel()
        with contextlib.suppress(BaseException):
            await task
        return False
    task.result()  # a kernel that failed to start says why
    return True


async def _stop_channels(client: NotebookClient) -> None:
    if client.kc is not None:
        client.kc.stop_channels()


def _policy(opts: BatchOptions, env: dict[str, str]) -> str | None:
    return opts.policy or env.get("KERNEL_SHARD_HEADLESS_POLICY")


SEVERITY = (
    ExitCode.OK,
    ExitCode.BLOCKED,
    ExitCode.FAILED,
    ExitCode.MODEL_ERROR,
    ExitCode.KERNEL_DIED,
    ExitCode.TIMED_OUT,
    ExitCode.INTERRUPTED,
)
"""the run's status is its worst cell's, in this order"""


def mark(cell: Any, outcome: Outcome) -> None:
    """The outcome in the cell: metadata for scripts, and a note a reader sees when it is not ok."""
    cell.metadata["shard_batch"] = {"state": outcome.state, "exit_code": int(outcome.code)}
    if outcome.code == ExitCode.OK:
        return
    cell.metadata["shard_batch"]["note"] = outcome.note
    text = f"shard batch: {outcome.state}: {outcome.note}\n"
    cell.outputs.append(nbformat.v4.new_output("stream", name="stderr", text=text))


def start_notes(agent_id: str) -> list[str]:
    """The diagnostics the agent's kernel reported when it started (its first status event)."""
    try:
        path = shard_home() / "agents" / agent_id / "events.jsonl"
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, ValueError):  # no log: the kernel never started an agent
        return []
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("type") == "status":
            notes = event.get("diagnostics")
            return [str(n) for n in notes] if isinstance(notes, list) else []
    return []
