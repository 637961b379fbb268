"""An allowed `edit` → its result, with the language server cold, against the same edit with
`SHARD_LSP=off`, in the same run, interleaved.

Each sample is a fresh agent (the bundled code index, so `SHARD_LSP` decides the server: `auto`
finds pyright in the dev environment) over a fresh workspace with a Python module, one turn
whose model (a function provider) makes one `edit` of that module; the time is from the
`tool_call` event to the `tool_result` event. With the server cold the result must not wait
for it (the diagnostics follow as injected context): goal <= 1.2x the `off` anchor. The server
starts beside the first turn, so with an instant model (`--think 0`) the edit runs while pyright
and its client start (CPU they share with it); with a model that takes a second to answer it
has started by then.

    python bench/edit_lsp.py [--runs 5] [--think SECONDS ...] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import machine, ms, percentile
from shard_core.capabilities.code_index.lsp import find_server
from shard_core.contracts import ExtensionApi
from shard_core.engine.config import ShardConfig
from shard_core.protocol.events import Event, ToolCallEvent, ToolResultEvent
from shard_core.sdk import create_agent
from tests.fixtures.function_provider import FunctionProvider, scripted

GOAL = 1.2
SOURCE = "def total(xs: list[int]) -> int:\n    return sum(xs)\n"
EDIT = {"path": "m.py", "old_string": "return sum(xs)", "new_string": 'return "none"'}


async def one_edit(lsp: str, think: float) -> tuple[float, bool]:
    """Seconds from the edit's call to its result; whether diagnostics followed later."""
    os.environ["SHARD_LSP"] = lsp
    with tempfile.TemporaryDirectory(prefix="shard-bench-edit-") as tmp:
        root = Path(tmp)
        (root / "ws").mkdir()
        (root / "ws" / "m.py").write_text(SOURCE)
        provider = FunctionProvider(scripted({"tool_calls": [("edit", EDIT)]}), delay=think)

        def install(api: ExtensionApi) -> None:
            api.register_provider("fn", lambda model: provider)

        agent = await create_agent(
            cwd=root / "ws",
            model="fn/any",
            home=root / "home",
            config=ShardConfig(),
            env={"HOME": str(root / "user")},
            extensions=[("bench.fn", install)],
            allow=["edit"],
        )
        marks: dict[str, float] = {}

        def watch(event: Event) -> None:
            if isinstance(event, ToolCallEvent):
                marks["call"] = time.perf_counter()
            elif isinstance(event, ToolResultEvent):
                marks["result"] = time.perf_counter()
            elif event.type == "context_injected":
                marks["diagnostics"] = time.perf_counter()

        agent.events.subscribe(watch)
        try:
            await agent.run("break it")
            await asyncio.wait_for(asyncio.gather(*agent.session.follow_ups), 120)
        finally:
            await agent.close()
        return marks["result"] - marks["call"], "diagnostics" in marks


async def main(runs: int, thinks: list[float]) -> None:
    if find_server() is None:
        print("no Python language server installed: nothing to compare")
        return
    print(machine())
    for think in thinks:
        await compare(runs, think)


async def compare(runs: int, think: float) -> None:
    cold: list[float] = []
    off: list[float] = []
    followed = 0
    for _ in range(runs):  # interleaved: load changes hit both alike
        seconds, diagnosed = await one_edit("auto", think)
        cold.append(seconds)
        followed += diagnosed
        off.append((await one_edit("off", think))[0])
    print(f"edit → result, model answers after {think:.1f} s, {runs} runs each, interleaved")
    for name, samples in (("SHARD_LSP=auto (pyright cold)", cold), ("SHARD_LSP=off", off)):
        print(f"  {name:32} median {ms(percentile(samples, 50))} ms, max {ms(max(samples))} ms")
    ratio = percentile(cold, 50) / percentile(off, 50)
    print(f"  ratio cold/off (median): {ratio:.2f}x (goal <= {GOAL}x)")
    print(f"  diagnostics followed as injected context in {followed} of {runs} cold runs")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--think",
        type=float,
        action="append",
        help="seconds the model takes per reply (repeatable; default 0 and 1.0: an instant "
        "model makes the edit while the server is still starting, a real one seldom does)",
    )
    parser.add_argument("--quick", action="store_true", help="one run, an instant model")
    args = parser.parse_args()
    thinks = [0.0] if args.quick else (args.think or [0.0, 1.0])
    asyncio.run(main(1 if args.quick else args.runs, thinks))
