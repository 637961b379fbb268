"""`shard acp` driven by the ACP SDK's own client, as a host runs it: a subprocess on stdio.

`AcpHost` is a real `acp.Client`: it records every session update, answers each permission
request with the option its test chose (and keeps the request), and can offer the fs methods.
`acp_agent` starts `python -m shard_kernel.cli acp …` with a temporary SHARD_HOME and config,
on a copy of the demo's buggy project (calc.py's add subtracts).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pytest
from acp import PROTOCOL_VERSION, Client, spawn_agent_process
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    Implementation,
    InitializeResponse,
    PermissionOption,
    ReadTextFileResponse,
    RequestPermissionResponse,
    TextContentBlock,
    ToolCallUpdate,
    WriteTextFileResponse,
)

DEMO_PROJECT = Path(__file__).parents[3] / "shard_kernel" / "demo" / "project"
AGENT_PYTHON = os.environ.get("SHARD_TEST_ACP_PYTHON") or sys.executable
"""the Python that runs `shard acp` (e.g. a venv with the ACP SDK 0.11, jupyter-ai 3.2's pin);
the host side is always this one's SDK"""


@dataclass
class AskRecord:
    session_id: str
    tool_call: ToolCallUpdate
    options: list[PermissionOption]


@dataclass
class AcpHost:
    """The client side: what an editor would be."""

    answer: str | None = "allow_once"  # an option id, or None: cancel the request
    updates: list[tuple[str, Any]] = field(default_factory=list[tuple[str, Any]])
    asks: list[AskRecord] = field(default_factory=list[AskRecord])
    files: dict[str, str] = field(default_factory=dict[str, str])
    fs_reads: list[str] = field(default_factory=list[str])
    on_ask: Callable[[AskRecord], None] | None = None

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption],
        **kwargs: Any,
    ) -> RequestPermissionResponse:  # fmt: skip
        record = AskRecord(session_id, tool_call, options)
        self.asks.append(record)
        if self.on_ask is not None:
            self.on_ask(record)
        if self.answer is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=self.answer)
        )

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, update))

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None,
        **kwargs: Any,
    ) -> ReadTextFileResponse:  # fmt: skip
        self.fs_reads.append(path)
        text = self.files[path] if path in self.files else Path(path).read_text()
        return ReadTextFileResponse(content=text)

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> WriteTextFileResponse:
        self.files[path] = content
        return WriteTextFileResponse()

    def kinds(self, session_id: str | None = None) -> list[str]:
        return [u.session_update for s, u in self.updates if session_id is None or s == session_id]

    def of(self, kind: str) -> list[Any]:
        return [u for _, u in self.updates if u.session_update == kind]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.of(kind))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "project"
    shutil.copytree(DEMO_PROJECT, work)
    return work


@pytest.fixture
def acp_env(tmp_path: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL")
    }
    env["SHARD_HOME"] = str(tmp_path / "shard-home")
    env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    env["HOME"] = str(tmp_path / "home")
    (tmp_path / "home").mkdir()
    for name in ("JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_CONFIG_DIR", "IPYTHONDIR"):
        env[name] = str(tmp_path / name.lower())
    return env


@pytest.fixture(params=["sdk-0.12", "sdk-0.11"])
def agent_python(request: pytest.FixtureRequest) -> str:
    """The Python `shard acp` runs on: this one (the SDK 0.12), or jupyter-ai's environment
    (tests/fixtures/jupyter_ai.py), whose SDK is the 0.11.1 jupyter-ai-acp-client 0.3 pins."""
    if request.param == "sdk-0.12":
        return AGENT_PYTHON
    from tests.fixtures.jupyter_ai import jai_python

    python = jai_python()
    if not isinstance(python, Path):
        pytest.fail(python)
    return str(python)


@contextlib.asynccontextmanager
async def acp_agent(
    host: AcpHost,
    env: dict[str, str],
    *args: str,
    stderr: Path,
    fs: bool = False,
    python: str | None = None,
) -> AsyncIterator[tuple[ClientSideConnection, asyncio.subprocess.Process, InitializeResponse]]:
    """`shard acp ARGS` started (by `python`, default AGENT_PYTHON) and initialized; stopped
    (stdin closed) on the way out."""
    with stderr.open("ab") as err:
        async with spawn_agent_process(
            cast(Client, host), python or AGENT_PYTHON, "-m", "shard_kernel.cli", "acp", *args,
            env=env, transport_kwargs={"stderr": err.fileno(), "shutdown_timeout": 30.0},
        ) as (conn, process):  # fmt: skip
            caps = ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=fs, write_text_file=fs)
            )
            init = await asyncio.wait_for(
                conn.initialize(
                    protocol_version=PROTOCOL_VERSION,
                    client_capabilities=caps,
                    client_info=Implementation(name="pytest-host", title="Test host", version="1"),
                ),
                120,
            )
            yield conn, process, init


def write_script(folder: Path, steps: list[dict[str, Any]], name: str = "script") -> str:
    """A scripted model (docs/SCRIPTED.md) as the `--model` string that plays it."""
    path = folder / f"{name}.json"
    path.write_text(json.dumps({"name": name, "steps": steps}), encoding="utf-8")
    return f"scripted/{path}"


def text_prompt(text: str) -> list[Any]:
    return [TextContentBlock(type="text", text=text)]
