"""The process a gateway workflow's file runs in, so a file that blocks or crashes takes only
its own run down: `python -m shard_kernel.workflows.worker HOME RUN SPENT`.

The engine runs here (the file's `main`, the record of each finished step); each `wf.agent`
and `wf.ask` is a request to the gateway, which runs the step as a subagent job or puts the
question, and answers it. One JSON object a line: requests `{"id", "op": "agent", "task",
"definition", "cwd", "model"}` or `{"id", "op": "ask", "n", "question", "choices",
"allow_other", "multi"}` on the process's original stdout, replies `{"id", "report"}`,
`{"id", "values", "decided_by"}` or `{"id", "error"}` on its stdin. The file's own prints go to
stderr (the run's `worker.log`) and its stdin is empty, so neither can break the lines.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import sys
from pathlib import Path
from typing import Any, BinaryIO

from shard_core.contracts.ui import QuestionAnswer, QuestionPrompt
from shard_kernel.workflows.engine import WorkflowError, run_workflow
from shard_kernel.workflows.journal import Journal

EXIT_ORPHANED = 75


class GatewayLine:
    """Requests to the gateway and their replies, by id."""

    def __init__(self, out: BinaryIO, reader: asyncio.StreamReader) -> None:
        self.out, self.reader = out, reader
        self._ids = itertools.count()
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}

    async def pump(self) -> None:
        while line := await self.reader.readline():
            reply = json.loads(line)
            future = self._waiting.pop(int(reply["id"]), None)
            if future is not None and not future.done():
                future.set_result(reply)
        # the gateway went away (a stop, a crash): end here and record nothing more; the run
        # stays `running` on disk, and the gateway's next start resumes it
        os._exit(EXIT_ORPHANED)

    async def call(self, **request: Any) -> dict[str, Any]:
        n = next(self._ids)
        future = asyncio.get_running_loop().create_future()
        self._waiting[n] = future
        self.out.write(json.dumps({"id": n, **request}).encode() + b"\n")
        self.out.flush()
        reply = await future
        if reply.get("error") is not None:
            raise WorkflowError(str(reply["error"]))
        return reply


async def serve(home: Path, run_id: str, spent: float, out: BinaryIO, inp: int) -> int:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(inp, "rb", buffering=0)
    )
    line = GatewayLine(out, reader)
    pumping = asyncio.ensure_future(line.pump())

    async def agent(task: str, definition: str | None, cwd: str | None, model: str | None) -> str:
        reply = await line.call(op="agent", task=task, definition=definition, cwd=cwd, model=model)
        return str(reply.get("report") or "")

    async def ask(n: int, prompt: QuestionPrompt) -> QuestionAnswer | None:
        reply = await line.call(op="ask", n=n, question=prompt.question,
                                choices=list(prompt.choices), allow_other=prompt.allow_other,
                                multi=prompt.multi)  # fmt: skip
        values = reply.get("values")
        if not isinstance(values, list):
            return None
        return QuestionAnswer(tuple(str(v) for v in values), str(reply.get("decided_by") or ""))

    journal = Journal(home, run_id)
    record = journal.record()
    try:
        await run_workflow(
            home, Path(record.file), record.inputs, agent, journal=journal,
            max_agents=record.max_agents, deadline=record.deadline, asker=ask, spent=spent,
        )  # fmt: skip
    finally:
        pumping.cancel()
    return 0


def main(argv: list[str]) -> int:
    home, run_id, spent = Path(argv[0]), argv[1], float(argv[2])
    # the lines to the gateway get the original stdin/stdout; the file gets stderr and nothing
    inp, out = os.dup(0), os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    sys.stdout = sys.stderr
    return asyncio.run(serve(home, run_id, spent, out, inp))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
