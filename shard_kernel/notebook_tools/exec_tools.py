"""python_exec, notebook_run, kernel_restart and python_inspect: the workspace kernel as tools.

Each result gives the model the outputs (outputs.py: text, tracebacks, images attached) and
people a status line; an interrupted or timed-out call says so. Running code is gated by the
`PythonExec` / `NotebookRun` rules (not read-only, so the default is to ask).
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from shard_core.contracts import ToolContext
from shard_core.engine.plurals import counted
from shard_core.tools.guard import guarded
from shard_core.types import JsonObject, TextBlock, ToolResult
from shard_core.types.render import ProgressDescriptor, StatusDescriptor, TextDescriptor
from shard_kernel.notebook_tools.context import NotebookSetup, path_description, resolve_notebook
from shard_kernel.notebook_tools.document import NotebookError, NotebookFile
from shard_kernel.notebook_tools.outputs import Budget, summarise
from shard_kernel.notebook_tools.store import NotebookStore
from shard_kernel.notebook_tools.workspace_kernel import Execution, KernelError, WorkspaceKernel

Saved = Callable[[Path], Awaitable[None]]
PROGRESS_EVERY = 0.5
MAX_PROGRESS_CHARS = 4_000

_TIMEOUT: JsonObject = {
    "type": "number",
    "exclusiveMinimum": 0,
    "description": "Seconds before the run is interrupted (default from the agent's setup).",
}


class Progress:
    """Streams a long run's output as it comes: `ctx.on_update` gets the output so far and a
    progress descriptor (seconds running), at most every PROGRESS_EVERY seconds."""

    def __init__(self, ctx: ToolContext, label: str) -> None:
        self.ctx = ctx
        self.label = label
        self.outputs: list[JsonObject] = []
        self.started = time.monotonic()
        self.sent = 0.0

    def output(self, output: JsonObject) -> None:
        self.outputs.append(output)
        now = time.monotonic()
        if self.ctx.on_update is None or now - self.sent < PROGRESS_EVERY:
            return
        self.sent = now
        text = "\n".join(summarise(self.outputs, Budget(chars=MAX_PROGRESS_CHARS, images=0)))
        elapsed = round(now - self.started, 1)
        self.ctx.on_update(
            ToolResult(
                content=[TextBlock(text=text)],
                render=[
                    ProgressDescriptor(
                        label=f"{self.label}: running {elapsed:g} s", current=elapsed
                    ),
                    TextDescriptor(text=text),
                ],
            )
        )


def _execution_result(run: Execution, what: str, limit: float) -> ToolResult:
    budget = Budget()
    lines = summarise(run.outputs, budget)
    if run.timed_out:
        lines.append(f"(interrupted after the {limit:g} s timeout)")
    elif run.interrupted:
        lines.append("(interrupted)")
    lines += run.notes
    text = "\n".join(lines) if lines else "(no output)"
    failed = run.error is not None or run.interrupted
    tone = "error" if failed else "success"
    count = f" [{run.execution_count}]" if run.execution_count else ""
    label = f"{what}{count}: " + ("failed" if failed else "ok")
    render = [StatusDescriptor(label=label, tone=tone), TextDescriptor(text=text, format="plain")]
    return ToolResult(
        content=[TextBlock(text=f"{label}\n{text}"), *budget.attached],
        is_error=failed,
        render=list(render),
        details={"status": run.status, "execution_count": run.execution_count},
    )


class PythonExecTool:
    name: str = "python_exec"
    read_only: bool = False

    def __init__(self, kernel: WorkspaceKernel, setup: NotebookSetup) -> None:
        self.kernel = kernel
        self.setup = setup
        self.description = (
            "Run code in the workspace kernel (a persistent Jupyter kernel in the cwd; variables "
            "stay between calls) and get its outputs: stdout/stderr, results, tracebacks and "
            "images (plots are attached so you can see them). For exploring data and checking "
            "ideas; a long run is interrupted at the timeout or when the turn is aborted."
        )
        self.input_schema: JsonObject = {
            "type": "object",
            "properties": {"code": {"type": "string"}, "timeout": _TIMEOUT},
            "required": ["code"],
            "additionalProperties": False,
        }

    @guarded
    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        limit = float(input.get("timeout", self.setup.exec_timeout))
        progress = Progress(ctx, "python_exec")
        try:
            run = await self.kernel.execute(
                input["code"], limit=limit, ctx=ctx, on_output=progress.output
            )
        except KernelError as exc:
            return ToolResult.error(str(exc))
        return _execution_result(run, "python_exec", limit)


class NotebookRunTool:
    name: str = "notebook_run"
    read_only: bool = False

    def __init__(
        self,
        kernel: WorkspaceKernel,
        setup: NotebookSetup,
        store: NotebookStore | None = None,
        on_saved: Saved | None = None,
    ) -> None:
        self.kernel = kernel
        self.setup = setup
        self.store = store or NotebookStore()
        self._on_saved = on_saved
        self.description = (
            "Run cells of a notebook in the workspace kernel, in notebook order, and save their "
            "outputs and execution counts into the notebook. Give `cell_ids`, or `all`: true, "
            "or `from` (a cell id: that cell and every code cell after it). Stops at the first "
            "cell that fails; its traceback is in the result."
        )
        self.input_schema: JsonObject = {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": path_description(setup)},
                "cell_ids": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                "all": {"type": "boolean"},
                "from": {"type": "string"},
                "timeout": _TIMEOUT,
            },
            "required": ["path"],
            "additionalProperties": False,
        }

    @guarded
    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        found = resolve_notebook(input["path"], ctx)
        if isinstance(found, ToolResult):
            return found
        target, shown = found
        try:
            doc = await self.store.read(target)
            wanted = _selected(doc, input)
        except NotebookError as exc:
            return ToolResult.error(str(exc), path=shown)
        limit = float(input.get("timeout", self.setup.exec_timeout))
        ran: list[tuple[str, Execution]] = []
        try:
            for cell_id in wanted:
                ran.append((cell_id, await self._run_cell(target, cell_id, limit, ctx)))
                if ran[-1][1].error is not None or ran[-1][1].interrupted:
                    break
        except KernelError as exc:
            return ToolResult.error(str(exc), path=shown)
        except NotebookError as exc:
            return ToolResult.error(f"{exc}; the cells run before were saved", path=shown)
        if self._on_saved is not None and ran:
            await self._on_saved(target)
        return _run_report(shown, wanted, ran, limit)

    async def _run_cell(
        self, target: Path, cell_id: str, limit: float, ctx: ToolContext
    ) -> Execution:
        doc = await self.store.read(target)
        source = doc.cells[doc.find(cell_id)].source
        progress = Progress(ctx, f"{target.name} cell {cell_id}")
        run = await self.kernel.execute(source, limit=limit, ctx=ctx, on_output=progress.output)
        # Into the notebook as it is now (it may have been edited while the cell ran): only
        # this cell's outputs and count change.
        await self.store.change(target, lambda now: _store_outputs(now, cell_id, run))
        return run


def _selected(doc: NotebookFile, input: JsonObject) -> list[str]:
    chosen = [k for k in ("cell_ids", "all", "from") if input.get(k) not in (None, False)]
    if len(chosen) != 1:
        raise NotebookError("give exactly one of cell_ids, all: true, or from (a cell id)")
    code = [c for c in doc.cells if c.cell_type == "code"]
    if input.get("all"):
        return [c.id for c in code]
    if "from" in input:
        start = doc.find(str(input["from"]))
        return [c.id for c in doc.cells[start:] if c.cell_type == "code"]
    ids = [str(i) for i in input["cell_ids"]]
    for cell_id in ids:
        cell = doc.cells[doc.find(cell_id)]
        if cell.cell_type != "code":
            raise NotebookError(f"cell {cell_id} is a {cell.cell_type} cell; only code cells run")
    order = {c.id: n for n, c in enumerate(doc.cells)}
    return sorted(dict.fromkeys(ids), key=order.__getitem__)


def _store_outputs(doc: NotebookFile, cell_id: str, run: Execution) -> None:
    cell = doc.cells[doc.find(cell_id)]
    cell.data["outputs"] = run.outputs
    cell.data["execution_count"] = run.execution_count
    cell.touch()


def _run_report(
    shown: str, wanted: list[str], ran: list[tuple[str, Execution]], limit: float
) -> ToolResult:
    budget = Budget()
    blocks: list[str] = []
    for cell_id, run in ran:
        count = f"[{run.execution_count}]" if run.execution_count else "[ ]"
        state = "failed" if run.error or run.interrupted else "ok"
        body = "\n".join(summarise(run.outputs, budget)) or "(no output)"
        if run.timed_out:
            body += f"\n(interrupted after the {limit:g} s timeout)"
        body += "".join(f"\n{note}" for note in run.notes)
        blocks.append(f"## cell {cell_id} {count} {state}\n{body}")
    skipped = wanted[len(ran) :]
    failed = any(r.error is not None or r.interrupted for _, r in ran)
    head = f"ran {len(ran)} of {counted(len(wanted), 'cell')} in {shown}; outputs saved"
    if skipped:
        head += f"; not run after the failure: {', '.join(skipped)}"
    tone = "error" if failed else "success"
    return ToolResult(
        content=[TextBlock(text="\n\n".join([head, *blocks])), *budget.attached],
        is_error=failed,
        render=[StatusDescriptor(label=head, tone=tone)],
        details={"path": shown, "ran": [c for c, _ in ran], "skipped": skipped},
    )


class KernelRestartTool:
    name: str = "kernel_restart"
    read_only: bool = False
    description: str = (
        "Restart the workspace kernel: every variable is lost. Use it when the kernel is stuck "
        "or its state is confused; then rerun what you need."
    )
    input_schema: JsonObject = {"type": "object", "properties": {}, "additionalProperties": False}

    def __init__(self, kernel: WorkspaceKernel) -> None:
        self.kernel = kernel

    @guarded
    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        try:
            return ToolResult.ok(await self.kernel.restart(ctx))
        except KernelError as exc:
            return ToolResult.error(str(exc))


_INSPECT = """
def _shard_inspect(names):
    import json, sys
    ip = get_ipython()
    hidden = set(getattr(ip, "user_ns_hidden", {}))
    ns = ip.user_ns
    rows = []
    for name in (names or sorted(ns)):
        if name not in ns:
            rows.append({"name": name, "missing": True})
            continue
        if not names and (name.startswith("_") or name in hidden):
            continue
        value = ns[name]
        kind = type(value)
        if not names and kind.__name__ in ("module", "function", "builtin_function_or_method"):
            continue
        row = {"name": name, "type": kind.__module__ + "." + kind.__qualname__}
        shape = getattr(value, "shape", None)
        if isinstance(shape, tuple):
            row["shape"] = list(shape)
        else:
            try:
                row["len"] = len(value)
            except Exception:
                pass
        try:
            text = repr(value)
        except Exception as exc:
            text = "<repr failed: %s>" % type(exc).__name__
        row["repr"] = text if len(text) <= 200 else text[:200] + "…"
        rows.append(row)
        if len(rows) >= 200:
            break
    sys.stdout.write("\\x00SHARD" + json.dumps(rows) + "\\n")
try:
    _shard_inspect(NAMES)
finally:
    del _shard_inspect
"""


class PythonInspectTool:
    name: str = "python_inspect"
    read_only: bool = True
    description: str = (
        "List the variables in the workspace kernel (name, type, shape or length, a short "
        "repr), like a variable explorer; give `names` for particular ones. Runs nothing of "
        "yours. Only for Python kernels."
    )
    input_schema: JsonObject = {
        "type": "object",
        "properties": {"names": {"type": "array", "items": {"type": "string"}}},
        "additionalProperties": False,
    }

    def __init__(self, kernel: WorkspaceKernel) -> None:
        self.kernel = kernel

    @guarded
    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        if not self.kernel.running:
            return ToolResult.ok("the workspace kernel has not started yet: no variables")
        if self.kernel.language not in (None, "python"):
            return ToolResult.error(
                f"python_inspect needs a Python kernel, not {self.kernel.language}"
            )
        names = [str(n) for n in input.get("names", [])]
        try:
            run = await self.kernel.execute(
                _INSPECT.replace("NAMES", json.dumps(names)), limit=30, silent=True
            )
        except KernelError as exc:
            return ToolResult.error(str(exc))
        rows = _inspect_rows(run)
        if rows is None:
            return _execution_result(run, "python_inspect", 30)
        return ToolResult.ok(_table(rows), TextDescriptor(text=_table(rows)), variables=len(rows))


def _inspect_rows(run: Execution) -> list[dict[str, Any]] | None:
    for output in run.outputs:
        text = str(output.get("text", ""))
        if output.get("output_type") == "stream" and "\x00SHARD" in text:
            return json.loads(text.split("\x00SHARD", 1)[1].splitlines()[0])
    return None


def _table(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "no variables"
    lines = []
    for row in rows:
        if row.get("missing"):
            lines.append(f"{row['name']}: not defined")
            continue
        size = f" shape={tuple(row['shape'])}" if "shape" in row else ""
        size = size or (f" len={row['len']}" if "len" in row else "")
        lines.append(f"{row['name']}: {row['type']}{size} = {row['repr']}")
    return "\n".join(lines)
