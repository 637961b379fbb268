"""The import budget (issues 27 and 38): what `shard --help`, `import shard_kernel.kernel` and
the CLI's own commands (`shard session …`, `shard run`, `shard acp`) load, by name. A fresh
interpreter runs the code and lists `sys.modules`; a heavy dependency or a new shard module on
the path shows up here by name (no time is measured: bench/b2 and bench/cli_start.py time it).

When this fails because a module now belongs on the path, add it to the expected set below; when
a forbidden package appears, import it where it is used instead (inside the function, or behind
`TYPE_CHECKING` for annotations).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from shard_kernel.cli import build_parser
from shard_kernel.commands import SUBCOMMANDS, SUMMARIES


def loaded_after(code: str, env: dict[str, str] | None = None) -> set[str]:
    """The modules a fresh interpreter holds after running `code`."""
    listing = "import sys\nmods = sorted(sys.modules)\nimport json\nprint(json.dumps(mods))"
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\n{listing}"],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    return set(json.loads(out.splitlines()[-1]))


def loaded_by_command(argv: list[str], home: Path, cwd: Path | None = None) -> set[str]:
    """The modules a fresh interpreter holds after `shard ARGV` ran in it (its output dropped;
    SHARD_HOME is `home`, so nothing of the user's is read)."""
    code = (
        "import contextlib, io, os\n"
        "from shard_kernel.cli import main\n"
        f"os.chdir({str(cwd or home)!r})\n"
        "quiet = io.TextIOWrapper(io.BytesIO())  # `shard run --json` writes bytes\n"
        "with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):\n"
        f"    status = main({argv!r})\n"
        "assert status == 0, status\n"
    )
    env = {**os.environ, "SHARD_HOME": str(home), "XDG_CONFIG_HOME": str(home / "config")}
    return loaded_after(code, env)


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
    "shard_core", "shard_core.lazy_exports", "shard_core.contracts", "shard_core.contracts.ui",
    "shard_core.engine",
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


BUILT_CODE = """
import json
import shard_kernel.kernel
from shard_core.types.base import WireModel

def subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from subclasses(sub)

models = set(subclasses(WireModel))
print(json.dumps([len(models), sorted(m.__name__ for m in models if m.__pydantic_complete__)]))
"""


def test_the_kernel_module_builds_no_wire_model() -> None:
    """Wire models build their validators at first use (`defer_build`): importing the kernel
    defines ~120 of them and builds none (it built all ~120 before, ~0.1 s of CPU)."""
    out = subprocess.run(
        [sys.executable, "-c", BUILT_CODE], check=True, capture_output=True, text=True
    ).stdout
    count, built = json.loads(out.splitlines()[-1])
    assert count > 50  # the protocol's models are defined ...
    assert built == []  # ... and none is built yet


CLI_FORBIDDEN = (
    "jupyter_client", "jupyter_server", "ipykernel", "zmq", "tornado", "nbformat", "yaml",
    "tree_sitter", "lsprotocol", "pygls", "mcp", "anthropic", "openai", "httpx", "httpcore2",
    "pathspec", "pyte", "psutil", "acp",
)  # fmt: skip
"""What no `shard session` action below loads: no Jupyter, no provider SDK, no parser."""

COMPACT_SHARD_MODULES = {
    "shard_core", "shard_core.lazy_exports", "shard_core.contracts", "shard_core.contracts.access",
    "shard_core.contracts.codeintel", "shard_core.contracts.compactor",
    "shard_core.engine", "shard_core.engine.access", "shard_core.engine.compaction",
    "shard_core.engine.plurals", "shard_core.engine.recall", "shard_core.engine.recall.documents",
    "shard_core.engine.recall.index", "shard_core.engine.recall.lineage",
    "shard_core.engine.recall.schema", "shard_core.engine.session_blobs",
    "shard_core.engine.session_store", "shard_core.engine.state",
    "shard_core.tools", "shard_core.tools.atomic", "shard_core.tools.shapes",
    "shard_core.types", "shard_core.types.base", "shard_core.types.content",
    "shard_core.types.decision", "shard_core.types.errors", "shard_core.types.normalized",
    "shard_core.types.provider", "shard_core.types.render", "shard_core.types.results",
    "shard_core.types.secrets", "shard_core.types.session", "shard_core.types.usage",
    "shard_kernel", "shard_kernel.cli", "shard_kernel.commands",
    "shard_kernel.commands.session", "shard_kernel.commands.session_rewind",
    "shard_kernel.commands.sessions", "shard_kernel.exit_codes", "shard_kernel.terminal",
    "shard_kernel.terminal.escape", "shard_kernel.terminal.output",
}  # fmt: skip
"""`shard session compact FILE --dry-run`: the entry models, the store, one lineage's headers
and the compactor (its own modules counted as `shard_core.engine.compaction`). Not the
checkpoints or the protocol (rewind's), the recall tool and home index, the providers
(`request`'s), a tool (the built-ins' shapes are `shard_core.tools.shapes`), asyncio."""


def _shard(modules: set[str]) -> set[str]:
    """The shard modules, compaction's own counted as its package."""
    package = "shard_core.engine.compaction"
    return {package if m.startswith(package + ".") else m for m in modules if m.startswith("shard")}


def _session_log(tmp_path: Path) -> Path:
    from tests.fixtures.sessions.synthetic import write_synthetic

    return write_synthetic(tmp_path / "s-synthetic.jsonl", 120)


def test_session_compact_dry_run_loads_the_store_and_the_compactor_only(tmp_path: Path) -> None:
    log = _session_log(tmp_path)
    modules = loaded_by_command(["session", "compact", str(log), "--dry-run"], tmp_path)
    assert _under(modules, CLI_FORBIDDEN) == set()
    assert "asyncio" not in modules
    assert _shard(modules) == COMPACT_SHARD_MODULES


def test_the_other_session_actions_load_what_they_read(tmp_path: Path) -> None:
    log = _session_log(tmp_path)
    recall = loaded_by_command(["session", "recall", str(log), "parser"], tmp_path)
    search = loaded_by_command(["session", "search", "parser"], tmp_path)
    listing = loaded_by_command(["sessions", "list"], tmp_path)
    show = loaded_by_command(["sessions", "show", str(log)], tmp_path)
    for modules in (recall, search, listing, show):
        assert _under(modules, CLI_FORBIDDEN) == set()
        assert _under(modules, ("shard_core.capabilities", "shard_core.protocol",
                                "shard_core.providers", "shard_core.sdk")) == set()  # fmt: skip
    rewind = loaded_by_command(["session", "rewind", str(log)], tmp_path)  # the turns table
    assert "shard_core.capabilities.checkpoints" in rewind
    assert _under(rewind, ("shard_core.providers", "shard_core.sdk", "jupyter_client", "zmq",
                           "yaml", "tree_sitter", "mcp", "httpx", "acp")) == set()  # fmt: skip


BOOT_CODE = """
import asyncio, json, os, pathlib, sys, tempfile
root = pathlib.Path(tempfile.mkdtemp())
os.environ.update(SHARD_HOME=str(root / "home"), XDG_CONFIG_HOME=str(root / "xdg"))
for key in [k for k in os.environ if k.endswith("_API_KEY") or k.startswith("SHARD_GATEWAY")]:
    del os.environ[key]
script = root / "script.json"
script.write_text(json.dumps({"name": "boot", "steps": [{"text": "ok"}]}))
(root / "ws").mkdir()
import shard_kernel.kernel
from shard_core.sdk import create_agent
from shard_kernel.notebook_tools import NotebookSetup, notebook_extension
from shard_kernel.recovery import recover
from shard_kernel.slash import kernel_commands
from shard_kernel.own_notebook import find_own_notebook

async def boot():
    extensions = [notebook_extension(NotebookSetup.from_env(os.environ))]
    agent = await create_agent(cwd=root / "ws", model=f"scripted/{script}", agent_id="agent-b",
                               resume=True, extensions=extensions)
    await agent.close()

asyncio.run(boot())
"""
"""What `ShardKernel._create` does for an agent with a scripted model in an empty workspace:
its imports, then `create_agent` (which imports more as it installs the capabilities)."""

BOOT_FORBIDDEN = (
    "httpcore2", "httpx", "anyio", "h11", "h2", "truststore", "anthropic", "openai", "mcp",
    "yaml", "pathspec", "pyte", "wcwidth", "ptyprocess", "urllib.request", "http.client",
    "email.parser", "jupyter_server", "nbformat", "jsonschema", "lsprotocol", "pygls", "psutil",
    "shard_widgets", "shard_core.capabilities.web.backend",
    "shard_core.capabilities.terminals.emulator",
)  # fmt: skip
"""What a booting agent does not load until it is used: the web fetcher's HTTP stack (the
first fetch), the provider SDKs (the first request), MCP (a configured server), YAML (the first
front matter), gitignore patterns (the first path rule, ignore file or search), the terminal
emulator and pty (the first terminal), urllib (the first subagent or server-kernel request)."""


def test_an_agent_boot_loads_no_dependency_before_its_first_use() -> None:
    modules = loaded_after(BOOT_CODE)
    assert "shard_core.sdk" in modules  # the boot ran
    assert "shard_core.capabilities.web.fetch" in modules  # ... and installed the web tools
    assert sorted(_under(modules, BOOT_FORBIDDEN)) == []


ACP_SHARD_MODULES = {
    "shard_core", "shard_core.lazy_exports", "shard_core.engine", "shard_core.engine.state",
    "shard_core.tools",
    "shard_core.tools.atomic",
    "shard_kernel", "shard_kernel.acp", "shard_kernel.acp.server", "shard_kernel.acp.transport",
    "shard_kernel.cli", "shard_kernel.commands", "shard_kernel.commands.acp",
    "shard_kernel.commands.common", "shard_kernel.exit_codes", "shard_kernel.terminal",
    "shard_kernel.terminal.escape", "shard_kernel.terminal.output",
}  # fmt: skip
"""`shard acp` up to its initialize response: the ACP SDK and the server, nothing of the engine
(the SDK, the wire models, the tools, the providers) or the gateway client: those load with
session/new, load and list."""

INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": 1, "clientCapabilities": {}}}  # fmt: skip


def test_shard_acp_answers_initialize_without_the_engine(tmp_path: Path) -> None:
    listing = tmp_path / "modules.json"
    code = (
        "import json, sys\n"
        "from shard_kernel.cli import main\n"
        "status = main(['acp'])\n"
        f"open({str(listing)!r}, 'w').write(json.dumps(sorted(sys.modules)))\n"
        "raise SystemExit(status)\n"
    )
    env = {**os.environ, "SHARD_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "c")}
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(INITIALIZE) + "\n",  # then end of input: the host left
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=True,
    )
    reply = json.loads(done.stdout.splitlines()[0])
    assert reply["id"] == 0
    assert reply["result"]["agentInfo"]["name"] == "shard"
    modules = set(json.loads(listing.read_text()))
    assert {m for m in modules if m.startswith("shard")} == ACP_SHARD_MODULES
    engine = ("shard_core.types", "shard_core.sdk", "shard_core.protocol", "jupyter_client",
              "zmq", "tornado", "yaml", "tree_sitter", "mcp", "anthropic", "openai", "httpx",
              "httpcore2", "pathspec", "sqlite3")  # fmt: skip
    assert _under(modules, engine) == set()


RUN_FORBIDDEN = (
    "zmq", "jupyter_client", "jupyter_server", "ipykernel", "IPython", "tornado", "nbformat",
    "jsonschema", "anthropic", "openai", "httpx", "httpcore2", "anyio", "mcp", "yaml", "pyte",
    "pathspec", "lsprotocol", "pygls", "psutil", "acp", "shard_widgets",
    "shard_kernel.terminal.render", "shard_kernel.terminal.bridge",
)  # fmt: skip
"""`shard run --json` of a one-answer scripted turn: the engine, and not the workspace kernel's
ZMQ and jupyter_client (the first cell it runs), a provider SDK (the first request), the
terminal's renderer and question bridge (a transcript, a terminal to ask on), gitignore
patterns (the first path rule or search)."""


def test_shard_run_json_loads_nothing_before_its_first_use(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"name": "one", "steps": [{"text": "ok"}]}))
    (tmp_path / "ws").mkdir()
    argv = ["run", "--json", "--model", f"scripted/{script}", "hello"]
    modules = loaded_by_command(argv, tmp_path, cwd=tmp_path / "ws")
    assert "shard_core.sdk" in modules  # the turn ran through the SDK
    assert "shard_kernel.notebook_tools.exec_tools" in modules  # ... with the notebook tools
    assert sorted(_under(modules, RUN_FORBIDDEN)) == []
