"""The README names every tool an agent is given: the default agent's, the notebook tools, the
subagent tools (the list drifted once: it said "seven tools" when an agent had fifteen)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from shard_core.capabilities.subagents.tools import TOOLS as SUBAGENT_TOOLS
from shard_core.sdk import create_agent
from shard_kernel.notebook_tools.edit_tool import NotebookEditTool
from shard_kernel.notebook_tools.exec_tools import (
    KernelRestartTool,
    NotebookRunTool,
    PythonExecTool,
    PythonInspectTool,
)
from shard_kernel.notebook_tools.propose_tool import ProposeCellEditTool
from shard_kernel.notebook_tools.read_tool import NotebookReadTool

README = Path(__file__).resolve().parents[3] / "README.md"


async def test_the_readme_names_every_bundled_tool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHARD_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("SHARD_GATEWAY_URL", raising=False)
    agent = await create_agent(cwd=tmp_path, model="scripted/demo")
    try:
        default = [tool.name for tool in agent.session.tools.tools()]
    finally:
        await agent.close()
    notebook = (
        NotebookReadTool,
        NotebookEditTool,
        PythonExecTool,
        NotebookRunTool,
        PythonInspectTool,
        KernelRestartTool,
        ProposeCellEditTool,
    )
    text = README.read_text()
    named = set(re.findall(r"`([a-z_]+)`", text))
    assert len(default) >= 15
    assert [name for name in [*default, *(t.name for t in notebook)] if name not in named] == []
    subagents = [t.name for t in SUBAGENT_TOOLS]
    assert all(name.startswith("subagent_") for name in subagents)
    assert f"{NUMBERS[len(subagents)]} `subagent_*` tools" in " ".join(text.split())


NUMBERS = {5: "five", 6: "six", 7: "seven", 8: "eight"}
