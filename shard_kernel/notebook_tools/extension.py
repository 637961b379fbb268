"""The notebook tools as one extension: every surface that builds an agent installs it.

    create_agent(..., extensions=[notebook_extension()])

It registers notebook_read, notebook_edit, propose_cell_edit, notebook_run, python_exec,
python_inspect and kernel_restart around one WorkspaceKernel (started on first use inside the
agent's sandbox, shut down with the agent), the `/kernel` command, and — when a notebook was
handed over (`%shard new --notebook this`) — a prompt section that names it and says whose
kernel the code runs in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from shard_core.capabilities.assembly import sandbox_policy
from shard_core.contracts import Disposer, Extension, ExtensionApi
from shard_core.contracts.extension import CommandHandler
from shard_core.engine.access import declare_tools
from shard_core.engine.config import SandboxConfig
from shard_core.engine.prompt import PROMPT_SECTIONS_EVENT
from shard_core.tools.sandbox import Sandbox
from shard_core.types import SessionEntry, SystemSection
from shard_kernel.notebook_tools.context import NotebookSetup
from shard_kernel.notebook_tools.edit_tool import NotebookEditTool, Saved
from shard_kernel.notebook_tools.exec_tools import (
    KernelRestartTool,
    NotebookRunTool,
    PythonExecTool,
    PythonInspectTool,
)
from shard_kernel.notebook_tools.propose_tool import ProposeCellEditTool
from shard_kernel.notebook_tools.read_tool import NotebookReadTool
from shard_kernel.notebook_tools.shared_doc import SharedNotebooks
from shard_kernel.notebook_tools.store import NotebookStore
from shard_kernel.notebook_tools.workspace_kernel import KernelError, WorkspaceKernel

EXTENSION_NAME = "shard.notebook"
KERNEL_USAGE = "usage: /kernel [status|restart|interrupt]"
TOOL_TYPES = (
    NotebookReadTool, NotebookEditTool, NotebookRunTool, PythonExecTool, PythonInspectTool,
    KernelRestartTool, ProposeCellEditTool,
)  # fmt: skip


def declare_notebook_tools() -> None:
    """Make the notebook tools' permission shapes known where no agent installs them: rules
    such as `NotebookEdit(*.ipynb)` then parse (what checks rules before an agent exists
    declares them with every other tool: shard_kernel/registrations.py)."""
    declare_tools(TOOL_TYPES)


def notebook_extension(
    setup: NotebookSetup | None = None, *, on_saved: Saved | None = None
) -> tuple[str, Extension]:
    """(name, extension) for `AgentOptions.extensions`."""
    chosen = setup or NotebookSetup()

    def install(api: ExtensionApi) -> Disposer:
        kernel = WorkspaceKernel(
            kernel_name=chosen.kernel_name,
            connection_file=chosen.connection_file,
            use_server=chosen.server_kernels,
            sandbox=kernel_sandbox(api),
        )
        shared = SharedNotebooks.for_parent_server() if chosen.shared_documents else None
        store = NotebookStore(shared)
        api.register_tool(NotebookReadTool(chosen, store))
        api.register_tool(NotebookEditTool(chosen, store, on_saved))
        api.register_tool(ProposeCellEditTool(chosen, store))
        api.register_tool(NotebookRunTool(kernel, chosen, store, on_saved))
        api.register_tool(PythonExecTool(kernel, chosen))
        api.register_tool(PythonInspectTool(kernel))
        api.register_tool(KernelRestartTool(kernel))
        api.register_command("kernel", "the workspace kernel: status, restart, interrupt",
                             _kernel_command(kernel))  # fmt: skip
        if chosen.default_notebook is not None:
            api.on(PROMPT_SECTIONS_EVENT, _handed_notebook(chosen))
        return kernel.shutdown

    return EXTENSION_NAME, install


def kernel_sandbox(api: ExtensionApi) -> Sandbox | None:
    """The sandbox the workspace kernel starts in: bash's (config `sandbox`), unless
    `sandbox.kernel` is "off"."""
    box = SandboxConfig.model_validate(api.settings("sandbox"))
    if box.kernel != "on":
        return None
    kept = api.settings("credentials").values()
    files = [str(c["file"]) for c in kept if isinstance(c, dict) and c.get("file")]
    return Sandbox(sandbox_policy(box, files))


def _kernel_command(kernel: WorkspaceKernel) -> CommandHandler:
    async def handle(words: list[str]) -> str:
        action = words[0] if words else "status"
        if len(words) > 1 or action not in ("status", "restart", "interrupt"):
            return KERNEL_USAGE
        if action == "status":
            return f"workspace kernel: {kernel.describe()}"
        if action == "interrupt":
            if not kernel.running:
                return "the workspace kernel is not running"
            await kernel.interrupt()
            return "interrupt sent to the workspace kernel"
        try:
            return await kernel.restart()
        except KernelError as exc:
            return f"cannot restart: {exc}"

    return handle


def _handed_notebook(
    setup: NotebookSetup,
) -> Callable[[Sequence[SessionEntry]], list[SystemSection]]:
    notebook = setup.default_notebook
    whose = (
        "The workspace kernel is the notebook's own kernel: python_exec and notebook_run "
        "execute in the user's kernel, next to the user's variables (they see yours, you see "
        "theirs), so never restart it or delete what you did not create."
        if setup.connection_file is not None
        else "python_exec and notebook_run execute in a separate workspace kernel."
    )
    text = (
        f"You were handed the notebook {notebook} to work on: read it with notebook_read, "
        f"change cells with notebook_edit and run them with notebook_run. {whose}"
    )

    def sections(_branch: Sequence[SessionEntry]) -> list[SystemSection]:
        return [SystemSection(name="notebook", text=text, stable=True)]

    return sections
