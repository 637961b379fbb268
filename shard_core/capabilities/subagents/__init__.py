"""Subagents (L3): the six tools through which an agent launches and manages child agents.

The jobs themselves belong to the gateway (`shard_kernel/gateway/jobs/`); this package only
talks to it over loopback HTTP and never imports it. The tools are registered only when a
gateway has left its link in SHARD_HOME (an agent without one has no subagent tools).
"""

from __future__ import annotations

from pathlib import Path

from shard_core.capabilities.subagents.client import GatewayError, GatewayJobs
from shard_core.capabilities.subagents.tools import TOOLS, job_text
from shard_core.contracts import ExtensionApi

__all__ = ["GatewayError", "GatewayJobs", "SubagentsCapability", "job_text"]


class SubagentsCapability:
    """The extension: `host.install("shard.subagents", SubagentsCapability(home))`."""

    def __init__(self, home: Path) -> None:
        self.jobs = GatewayJobs(home)

    def __call__(self, api: ExtensionApi) -> None:
        if not self.jobs.available():
            return
        for tool in TOOLS:
            api.register_tool(tool(self.jobs))
