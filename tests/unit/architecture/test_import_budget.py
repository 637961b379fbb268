"""The import budget (issue 27): what `shard --help` and `import shard_kernel.kernel` load, by
name. A fresh interpreter imports the module and lists `sys.modules`; a heavy dependency or a
new shard module on the path shows up here by name (no time is measured: bench/b2 times it).

When this fails because a module now belongs on the path, add it to the expected set below; when
a forbidden package appears, import it where it is used instead (inside the function, or behind
`TYPE_CHECKING` for annotations).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from shard_kernel.cli import build_parser
from shard_kernel.commands import SUBCOMMANDS, SUMMARIES


def loaded_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running `code`."""
    listing = "import sys\nmods = sorted(sys.modules)\nimport json\nprint(json.dumps(mods))"
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\n{listing}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return set(json.loads(out.splitlines()[-1]))


def _under(modules: set[str], prefixes: tuple[str, ...]) -> set[str]:
    return {m for m in modules if any(m == p or m.startswith(p + ".") for p in prefixes)}


HELP_CODE = """
import contextlib, io
from shard_kernel.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
    main(["--help"])
"""


def test_shard_help_imports_no_command_module_and_no_dependency() -> None:
    modules = loaded_after(HELP_CODE)
    shard = {m for m in modules if m.startswith("shard")}
    assert shard == {
        "shard_core",
        "shard_kernel",
        "shard_kernel.cli",
        "shard_kernel.commands",
        "shard_kernel.exit_codes",  # the standard library only
    }
    heavy = ("pydantic", "pydantic_core", "jupyter_client", "jupyter_server", "ipykernel", "zmq",
             "tornado", "yaml", "sqlite3", "lsprotocol", "tree_sitter", "anthropic", "openai",
             "httpx", "mcp", "pathspec", "asyncio", "json", "uuid")  # fmt: skip
    assert _under(modules, heavy) == set()


def test_a_command_imports_its_own_module_only() -> None:
    modules = loaded_after(
        "from shard_kernel.cli import build_parser\nbuild_parser('rules').parse_args(['rules'])"
    )
    commands = {m for m in modules if m.startswith("shard_kernel.commands.")}
    assert commands <= {"shard_kernel.commands.rules", "shard_kernel.commands.common"}
    assert "shard_kernel.commands.rules" in commands


def test_the_summaries_are_what_each_command_registers() -> None:
    parser = build_parser()  # every module's real parser
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    registered = {action.dest: action.help for action in sub._choices_actions}
    assert list(registered) == list(SUBCOMMANDS)
    assert registered == SUMMARIES


KERNEL_SHARD_MODULES = {
    "shard_core", "shard_core.contracts", "shard_core.contracts.ui", "shard_core.engine",
    "shard_core.engine.event_log", "shard_core.engine.events", "shard_core.engine.plurals",
    "shard_core.engine.state",
    "shard_core.protocol", "shard_core.protocol.commands", "shard_core.protocol.events",
    "shard_core.protocol.framing", "shard_core.protocol.link", "shard_core.protocol.mime",
    "shard_core.protocol.orchestrator",
    "shard_core.protocol.version", "shard_core.tools", "shard_core.tools.atomic",
    "shard_core.types", "shard_core.types.base", "shard_core.types.content",
    "shard_core.types.decision", "shard_core.types.errors", "shard_core.types.normalized",
    "shard_core.types.provider", "shard_core.types.render", "shard_core.types.results",
    "shard_core.types.session", "shard_core.types.usage",
    "shard_kernel", "shard_kernel.agent_commands", "shard_kernel.agent_env",
    "shard_kernel.cell_output", "shard_kernel.clients", "shard_kernel.comm_commands",
    "shard_kernel.event_batch", "shard_kernel.iopub_hold", "shard_kernel.kernel",
    "shard_kernel.plain_text",
    "shard_kernel.terminal", "shard_kernel.terminal.escape",
    "shard_kernel.terminal.live", "shard_kernel.terminal.render", "shard_kernel.ui_bridge",
    "shard_kernel.warm_start",
    "shard_kernel.widget_host",
}  # fmt: skip
"""What the kernel needs to answer kernel_info and carry events: the wire types, the protocol,
the event log. The engine, the tools, the providers and the capabilities come with the agent
(`ShardKernel._create`)."""

KERNEL_FORBIDDEN = (
    "shard_core.sdk", "shard_core.engine.session", "shard_core.engine.session_store",
    "shard_core.engine.compaction", "shard_core.engine.extension_host", "shard_core.capabilities",
    "shard_core.providers", "shard_core.tools.bash", "shard_widgets", "jupyter_server",
    "nbformat", "jsonschema", "lsprotocol", "pygls", "tree_sitter", "tree_sitter_language_pack",
    "sqlite3", "yaml", "pathspec", "mcp", "anthropic", "openai", "httpx", "psutil",
)  # fmt: skip


def test_the_kernel_module_imports_what_kernel_info_needs_and_no_more() -> None:
    modules = loaded_after("import shard_kernel.kernel")
    assert _under(modules, KERNEL_FORBIDDEN) == set()
    assert {m for m in modules if m.startswith("shard")} == KERNEL_SHARD_MODULES
