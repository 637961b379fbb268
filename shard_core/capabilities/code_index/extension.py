"""The code index capability, installed through ExtensionApi like any third-party extension.

    await host.install("shard.code_index", CodeIndexCapability(cwd, home=shard_home))

It registers the code intelligence (the compactor's Type Catalog and every ToolContext get it),
the four tools, `/index` and `/map`, and four handlers: `tool_returned` announces the files a
tool changed (`file_mutated`) and asks the session's diagnosing code intelligence about them
(`changes.py`), `file_mutated` re-indexes just those files (a shell command's `since` means:
re-stat the workspace), and `tool_call` and `turn_start` note the files the session mentions,
which lead the repo map. The index is
built at the first question, not at install: a kernel may start in a very large folder. The
language server starts beside the session's first turn (`CodeIntelligence.warm`, which the
engine calls for the registered code intelligence only) when the workspace looks like Python.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import time
from collections.abc import Awaitable, Mapping, Sequence
from pathlib import Path
from typing import Any

from shard_core.capabilities.code_index import repo_map
from shard_core.capabilities.code_index.changes import announce_changes
from shard_core.capabilities.code_index.index import CodeIndex
from shard_core.capabilities.code_index.lsp import Diagnostics, find_server
from shard_core.capabilities.code_index.provider import CodeIntelligence
from shard_core.capabilities.code_index.tools import (
    CodeDiagnosticsTool,
    CodeOutlineTool,
    CodeSymbolTool,
    RepoMapTool,
)
from shard_core.contracts import ExtensionApi
from shard_core.engine.hook_points import TOOL_RETURNED
from shard_core.engine.plurals import counted
from shard_core.protocol.events import FileMutatedEvent, ToolCallEvent, TurnStartEvent

_PATH_KEYS = ("path", "file_path", "notebook_path")
INDEX_HELP = "code index status: files, languages, last update (`/index refresh` re-stats all)"
MAP_HELP = "the repo map: the workspace's most relevant definitions (optional focus: files, names)"
LSP_SETTING = "SHARD_LSP"
"""`auto` (default: the first installed server), `off`, or a command line to start"""


def server_command(env: Mapping[str, str] | None = None) -> list[str] | None:
    """The language server the SHARD_LSP setting asks for (`auto`: the first one found)."""
    setting = (os.environ if env is None else env).get(LSP_SETTING, "auto").strip()
    if setting.lower() in ("", "auto"):
        return find_server()
    if setting.lower() in ("off", "none", "0", "false"):
        return None
    return shlex.split(setting)


class CodeIndexCapability:
    def __init__(
        self,
        root: Path,
        *,
        home: Path | None = None,
        server: Sequence[str] | bool | None = True,
        lsp_timeout: float = 20.0,
        max_files: int | None = None,
    ) -> None:
        """`server`: True follows SHARD_LSP (default: the first installed language server),
        None/False runs without one, a command list starts that one."""
        if max_files is None:
            self.index = CodeIndex(root, home)
        else:
            self.index = CodeIndex(root, home, max_files=max_files)
        command = server_command() if server is True else (list(server) if server else None)
        diagnostics = Diagnostics(self.index.root, command, timeout=lsp_timeout)
        self.code = CodeIntelligence(self.index, diagnostics)

    def __call__(self, api: ExtensionApi) -> Any:
        api.register_code_intelligence(self.code)
        for tool in (
            CodeOutlineTool(self.code),
            CodeSymbolTool(self.code),
            RepoMapTool(self.code),
            CodeDiagnosticsTool(self.code),
        ):
            api.register_tool(tool)
        api.on(TOOL_RETURNED, announce_changes)
        api.on("file_mutated", self.file_mutated)
        api.on("tool_call", self.tool_call)
        api.on("turn_start", self.turn_start)
        api.register_command("index", INDEX_HELP, self.index_command)
        api.register_command("map", MAP_HELP, self.map_command)
        return self.close

    # ------------------------------------------------------------ event handlers

    def file_mutated(self, event: FileMutatedEvent) -> Awaitable[int] | None:
        paths: list[str] = list(event.paths)
        if paths:
            self.index.update(paths)  # inline: the tool result that follows sees the new index
            self.code.notice(paths)
        if event.since is not None and self.index.stats.refreshes:
            return asyncio.to_thread(self.index.refresh)  # a shell command: re-stat everything
        return None

    def tool_call(self, event: ToolCallEvent) -> None:
        given = event.call.input
        self.code.notice(str(given[k]) for k in _PATH_KEYS if isinstance(given.get(k), str))

    def turn_start(self, event: TurnStartEvent) -> None:
        if self.index.files:
            self.code.notice_text(event.prompt)

    # ------------------------------------------------------------ commands

    async def index_command(self, args: list[str]) -> str:
        if args[:1] == ["refresh"]:
            parsed = await asyncio.to_thread(self.index.refresh)
            head = f"refreshed: {counted(parsed, 'file')} re-parsed\n\n"
        else:
            await asyncio.to_thread(self.index.ensure)
            head = ""
        stats = self.index.stats
        when = time.strftime("%H:%M:%S", time.localtime(stats.last_update or 0))
        langs = ", ".join(f"{k} {v}" for k, v in self.index.languages().items()) or "none"
        rows = [
            ("workspace", str(self.index.root)),
            ("files", str(len(self.index.files))),
            ("languages", langs),
            ("last update", f"{when} ({stats.last_seconds * 1000:.0f} ms)"),
            ("parsed this session", str(stats.parsed)),
            ("language server", self.code.diagnostics.status),
            *(("limit", note) for note in stats.diagnostics),
        ]
        table = "\n".join(f"| {k} | {v} |" for k, v in rows)
        return f"{head}| code index | |\n|---|---|\n{table}"

    async def map_command(self, args: list[str]) -> str:
        chosen = await asyncio.to_thread(RepoMapTool(self.code).build, args, 1024)
        if not chosen:
            return "the index has no definitions that other files reference"
        return f"```\n{repo_map.render(chosen)}\n```"

    async def close(self) -> None:
        await self.code.diagnostics.close()
        await asyncio.to_thread(self.index.close)  # a background build stops; no worker stays
        await asyncio.to_thread(self.index.save)  # what single updates left unwritten
