"""Workflows: a Python file with `async def main(wf)` that scripts agents (`wf.agent`,
`wf.parallel`, `wf.chain`, `wf.log`, `wf.inputs`), each finished step recorded under
`SHARD_HOME/jobs/workflows/<run>/`, so a resumed run replays what finished instead of running it
again. For now runs are local (`shard workflow run`): the agents are in-process SDK agents."""

from __future__ import annotations

from shard_kernel.workflows.engine import Workflow, WorkflowError, run_workflow
from shard_kernel.workflows.journal import Journal, RunRecord

__all__ = ["Journal", "RunRecord", "Workflow", "WorkflowError", "run_workflow"]
