"""BatchRun: execute a notebook whose kernel is `shard` through nbclient, unattended.

No client attaches, so every permission ask is decided by the agent's headless policy at once.
Each cell is a prompt; the run stops at the first failed cell (like papermill) and the executed
notebook is written either way.
"""

from __future__ import annotations

import json
import os
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from shard_core.engine.state import shard_home
from shard_core.types.errors import ConfigError
from shard_kernel.local_kernels import private_kernel_manager
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


class ProgressClient(NotebookClient):
    """nbclient with one progress line per cell (a bar only on a terminal)."""

    progress: Any = None

    async def async_execute_cell(
        self,
        cell: Any,
        cell_index: int,
        execution_count: int | None = None,
        store_history: bool = True,
    ) -> Any:
        started = time.monotonic()
        if self.progress is not None:
            self.progress.start(cell_index, cell)
        try:
            return await super().async_execute_cell(
                cell, cell_index, execution_count, store_history
            )
        finally:
            if self.progress is not None:
                self.progress.done(cell_index, cell, time.monotonic() - started)


class Progress:
    def __init__(self, total: int, out: TextIO) -> None:
        self.total = total
        self.out = out
        self.tty = out.isatty()

    def start(self, index: int, cell: Any) -> None:
        if self.tty and cell.cell_type == "code":
            first = terminal_safe((cell.source.strip().splitlines() or [""])[0][:60])
            self.out.write(f"\r[{self._bar(index)}] cell {index + 1}/{self.total}: {first}")
            self.out.flush()

    def done(self, index: int, cell: Any, seconds: float) -> None:
        if cell.cell_type != "code":
            return
        failed = any(o.get("output_type") == "error" for o in cell.get("outputs", []))
        state = "failed" if failed else "ok"
        prefix = "\r" if self.tty else ""
        self.out.write(f"{prefix}cell {index + 1}/{self.total} {state} ({seconds:.1f}s)\n")
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
    if not opts.notebook.is_file():
        raise ConfigError(f"no notebook at {opts.notebook}")
    try:
        nb = nbformat.read(str(opts.notebook), as_version=4)
    except Exception as exc:
        raise ConfigError(f"{opts.notebook} is not a readable notebook: {exc}") from None
    kernel = nb.metadata.get("kernelspec", {}).get("name")
    if kernel != "shard":
        raise ConfigError(f"{opts.notebook} uses kernel {kernel!r}; shard batch runs 'shard'")
    output = opts.output or opts.notebook.with_name(opts.notebook.stem + ".out.ipynb")
    status = 0
    env = kernel_env(opts, dict(nb.metadata))
    with private_kernel_manager() as km:
        client = ProgressClient(
            nb,
            km=km,
            timeout=int(opts.timeout),
            resources={"metadata": {"path": str(opts.notebook.resolve().parent)}},
        )
        client.progress = Progress(len(nb.cells), out)
        try:
            # nbclient leaves a kernel manager it was handed running; cleanup_kc stops the
            # kernel before we exit (else it finds its parent gone and says so on stderr).
            client.execute(env=env, cleanup_kc=True)
        except CellExecutionError as exc:
            failure = terminal_safe(str(exc).strip().splitlines()[-1])  # kernel text: untrusted
            print(f"a cell failed: {failure}", file=out)
            status = 1
        finally:
            nbformat.write(nb, str(output))
    print(f"wrote {output}", file=out)
    for line in start_notes(env["KERNEL_SHARD_AGENT_ID"]):  # e.g. project files left out
        print(f"note: {terminal_safe(line)}", file=out)
    return status


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
