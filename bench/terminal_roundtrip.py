"""Terminal round trip: `terminal_send` of an `echo` + `terminal_wait` for its output, against
pexpect driving the same shell directly (`sendline` + `expect`), interleaved in one run.

Both drive `bash --norc --noprofile -i` on a pseudo-terminal with the same prompt; each sample
is one echo of a fresh token until the token's line is seen. Shard's side goes through the real
tools (what the model calls), unsandboxed so the two shells are the same program. Goal (issue
41): p50 and p99 ≤ 1.5x pexpect.

    python bench/terminal_roundtrip.py [--runs 200] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

import pexpect

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: shard_core lives at the repo root
    sys.path.insert(0, str(ROOT))

from bench._common import machine, ms, percentile, ratio, table  # noqa: E402
from shard_core.capabilities.terminals.registry import Terminals  # noqa: E402
from shard_core.capabilities.terminals.tools import TerminalSendTool, TerminalWaitTool  # noqa: E402
from shard_core.contracts import ToolContext  # noqa: E402
from shard_core.tools.sandbox import Sandbox, SandboxPolicy  # noqa: E402

SHELL = "bash --norc --noprofile -i"
PROMPT = "BENCH> "


async def shard_samples(cwd: Path, runs: int) -> list[float]:
    env = {"PATH": os.environ["PATH"], "HOME": str(cwd)}
    ctx = ToolContext(cwd=cwd, roots=[cwd], agent_id="bench", session_id="s", call_id="c", env=env)
    terminals = Terminals(Sandbox(SandboxPolicy(mode="off")))
    send, wait = TerminalSendTool(terminals), TerminalWaitTool(terminals)
    terminal = await terminals.open({"command": SHELL}, ctx)
    assert not isinstance(terminal, str), terminal
    try:
        await send.execute({"id": terminal.id, "text": f"PS1='{PROMPT}'"}, ctx)
        await wait.execute({"id": terminal.id, "pattern": f"^{PROMPT}$"}, ctx)
        samples = []
        for n in range(runs):
            token = f"tok{n}x"
            start = time.perf_counter()
            await send.execute({"id": terminal.id, "text": f"echo {token}"}, ctx)
            result = await wait.execute({"id": terminal.id, "pattern": f"^{token}\\s*$"}, ctx)
            samples.append(time.perf_counter() - start)
            assert "matched" in result.text, result.text
        return samples
    finally:
        await terminals.close_all()


def pexpect_samples(cwd: Path, runs: int) -> list[float]:
    env = {"PATH": os.environ["PATH"], "HOME": str(cwd), "TERM": "xterm"}
    child = pexpect.spawn(SHELL, cwd=str(cwd), env=env, encoding="utf-8", dimensions=(32, 120))
    child.delaybeforesend = None  # pexpect's default 50 ms pause would flatter Shard
    try:
        child.sendline(f"PS1='{PROMPT}'")
        child.expect_exact(PROMPT)
        child.expect_exact(PROMPT)
        samples = []
        for n in range(runs):
            token = f"tok{n}x"
            start = time.perf_counter()
            child.sendline(f"echo {token}")
            child.expect(f"(?<!echo ){token}\r\n")
            samples.append(time.perf_counter() - start)
            child.expect_exact(PROMPT)
        return samples
    finally:
        child.close(force=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=4, help="alternations of the two sides")
    parser.add_argument("--quick", action="store_true", help="20 runs, 2 rounds")
    args = parser.parse_args(argv)
    runs, rounds = (20, 2) if args.quick else (args.runs, args.rounds)
    cwd = Path(tempfile.mkdtemp(prefix="bench-term-"))
    shard: list[float] = []
    anchor: list[float] = []
    for _ in range(rounds):
        anchor += pexpect_samples(cwd, runs // rounds)
        shard += asyncio.run(shard_samples(cwd, runs // rounds))
    rows = []
    for label, q in (("p50", 50.0), ("p99", 99.0)):
        mine, base = percentile(shard, q), percentile(anchor, q)
        rows.append([label, ms(mine), ms(base), ratio(mine, base)])
    print(f"# terminal round trip: echo through a pty, {len(shard)} samples each side")
    print(machine())
    print("goal: ≤ 1.5x pexpect at p50 and p99\n")
    print(table(["echo round trip", "shard ms", "pexpect ms", "ratio"], rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
