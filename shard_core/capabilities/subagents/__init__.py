"""Subagents (L3): the six tools through which an agent launches and manages child agents.

The jobs themselves belong to the gateway (`shard_kernel/gateway/jobs/`); this package only
talks to it over loopback HTTP and never imports it. The tools are registered only when the
agent's environment names a gateway (SHARD_GATEWAY_URL, which the gateway gives the kernels
it starts); an agent without one has no subagent tools.
"""

from __future__ import annotations

from collections.abc import Mapping

from shard_core.capabilities.subagents.client import GatewayError, GatewayJobs
from shard_core.capabilities.subagents.tools import TOOLS, job_text
from shard_core.contracts import ExtensionApi

__all__ = ["GatewayError", "GatewayJobs", "SubagentsCapability", "job_text"]


class SubagentsCapability:
    """The extension: `host.install("shard.subagents", SubagentsCapability(env))`."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.jobs = GatewayJobs(env)

    def __call__(self, api: ExtensionApi) -> None:
        if not self.jobs.available():
            return
        for tool in TOOLS:
            api.register_tool(tool(self.jobs))
