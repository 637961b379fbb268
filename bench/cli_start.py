"""CLI start: each `shard` command's whole process beside an anchor, interleaved in one run.

    python bench/cli_start.py [--rounds 7] [--sizes 1000,5000,28000] [--quick] [--no-anchors]
        [--only compact,pi-vcc] [--pi-vcc-src DIR] [--pi-vcc-cache DIR] [--acp-anchor-cache DIR]

Arms; a round runs each once, the order rotated every round (the machine's moment hits all):

  compact N    `shard session compact FILE --dry-run` on a planted session of N entries, one
               arm per `--sizes` (bench/_planted.py, as B9): spawn → exit
  pi-vcc N     `node driver.mjs 1 FILE.pi.jsonl`: pi-vcc 0.2.2's node process on the entries
               Shard folds (bench/_pi_vcc.py sets it up, as B9: `--pi-vcc-src`, `PI_VCC_SRC` or
               a cached bundle; without one the arm is left out and said so)
  acp init     `shard acp`: spawn → the initialize response
  acp new      `shard acp --model scripted/demo`: spawn → initialize → session/new answered
  claude init  `claude-code-acp` (@zed-industries/claude-code-acp, installed once with npm into
               `--acp-anchor-cache`): spawn → the initialize response (a temp HOME: no login,
               nothing of the user's; it answers initialize without one)
  claude new   the same → session/new answered (it may refuse without a login: then it is left
               out and the refusal printed)
  run          `shard run --json --model scripted/demo PROMPT`: one scripted turn, spawn → exit
  py           `python -c pass`: the interpreter alone (floor)
  import acp   `python -c "import acp"`: the ACP SDK's import alone (floor; its pydantic
               models take ~1/3 of it in `use_attribute_docstrings`, see the ACP row of
               bench/README.md)

Every Shard arm gets a temporary SHARD_HOME, XDG_CONFIG_HOME and HOME; each node arm a
temporary HOME. Per arm: wall ms (median [min]) to its answer or exit, and the child's CPU ms
(user + sys from `wait4`, the whole process). Ratios are the median over rounds of each round's
ratio (a burst of load moves one round, not the result): compact N / pi-vcc N (goal <= 1.0x
at 5k and 28k, issue 38), acp init / claude init, acp new / claude new, and each Shard arm
against the floors.
`--no-anchors` runs the Shard arms and floors only (the smoke test's mode: nothing installed).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import machine, percentile, table

PYTHON = sys.executable
SHARD = [PYTHON, "-m", "shard_kernel.cli"]
CLAUDE_ACP = "@zed-industries/claude-code-acp@0.16.2"
INITIALIZE = {"protocolVersion": 1, "clientCapabilities": {}}


@dataclass
class Arm:
    name: str
    run: Callable[[], tuple[float, float]]
    """one start: (wall seconds to its answer or exit, the child's CPU seconds)"""
    walls: list[float] = field(default_factory=list[float])
    cpus: list[float] = field(default_factory=list[float])


def _reap(process: subprocess.Popen[bytes]) -> float:
    """Wait for the child; its user + sys seconds."""
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"{process.args!r} exited {process.returncode}")
    return usage.ru_utime + usage.ru_stime


def process_arm(
    argv: list[str], env: dict[str, str], cwd: Path
) -> Callable[[], tuple[float, float]]:
    """Spawn → exit, output dropped."""

    def once() -> tuple[float, float]:
        began = time.perf_counter()
        process = subprocess.Popen(
            argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd
        )
        cpu = _reap(process)
        return time.perf_counter() - began, cpu

    return once


def _send(stdin: IO[bytes], request_id: int, method: str, params: dict[str, Any]) -> None:
    line = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    stdin.write(json.dumps(line).encode() + b"\n")
    stdin.flush()


def _until(stdout: IO[bytes], request_id: int) -> dict[str, Any]:
    """The response to `request_id` (notifications before it skipped)."""
    while line := stdout.readline():
        message = json.loads(line)
        if message.get("id") == request_id and "method" not in message:
            if "error" in message:
                raise RuntimeError(f"the agent answered an error: {message['error']}")
            return message
    raise RuntimeError("the agent closed stdout before answering")


def acp_arm(
    argv: list[str], env: dict[str, str], cwd: Path, *, new_session: bool
) -> Callable[[], tuple[float, float]]:
    """Spawn → initialize answered (and session/new, with `new_session`); then stdin closed."""

    def once() -> tuple[float, float]:
        began = time.perf_counter()
        process = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=env, cwd=cwd,
        )  # fmt: skip
        assert process.stdin is not None
        assert process.stdout is not None
        try:
            _send(process.stdin, 0, "initialize", INITIALIZE)
            _until(process.stdout, 0)
            if new_session:
                _send(process.stdin, 1, "session/new", {"cwd": str(cwd), "mcpServers": []})
                _until(process.stdout, 1)
            elapsed = time.perf_counter() - began
        except BaseException:
            process.kill()
            raise
        finally:
            process.stdin.close()
        try:
            cpu = _reap(process)
        finally:
            process.stdout.close()
        return elapsed, cpu

    return once


def claude_acp(cache: Path) -> Path:
    """The claude-code-acp binary, installed with npm into `cache` the first time."""
    binary = cache / "node_modules" / ".bin" / "claude-code-acp"
    if not binary.exists():
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(cache), CLAUDE_ACP],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return binary


def planted(folder: Path, entries: int) -> tuple[Path, Path | None]:
    """A planted session and, when pi-vcc's converter can make it, the folded entries as a
    pi session (B9's `fold`)."""
    from bench._planted import write_planted
    from bench.b9_vs_pi_vcc import fold

    path = write_planted(folder / f"planted-{entries}.jsonl", entries, entries)
    return path, fold(path)[3]


def shard_env(root: Path) -> dict[str, str]:
    """A temp SHARD_HOME, config and HOME; bytecode written (the warm-up start writes it, as an
    installed package has it: this machine's environment sets PYTHONDONTWRITEBYTECODE, and a
    start that compiles every module measures the compiler)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SHARD_") and k != "PYTHONDONTWRITEBYTECODE"}  # fmt: skip
    for name, sub in (("SHARD_HOME", "home"), ("XDG_CONFIG_HOME", "config"), ("HOME", "user")):
        (root / sub).mkdir(exist_ok=True)
        env[name] = str(root / sub)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    return env


def arms(args: argparse.Namespace, root: Path) -> tuple[list[Arm], list[str]]:
    """The arms this run has, and notes on the ones left out."""
    env = shard_env(root)
    work = root / "work"
    work.mkdir()
    notes: list[str] = []
    sessions = {size: planted(root, size) for size in args.sizes}
    out = [
        *(Arm(f"compact {_k(size)}", process_arm(
            [*SHARD, "session", "compact", str(session), "--dry-run"], env, work))
          for size, (session, _) in sessions.items()),
        Arm("acp init", acp_arm([*SHARD, "acp"], env, work, new_session=False)),
        Arm("acp new", acp_arm([*SHARD, "acp", "--model", "scripted/demo"], env, work,
                               new_session=True)),
        Arm("run", process_arm([*SHARD, "run", "--json", "--model", "scripted/demo", "hello"],
                               env, work)),
        Arm("py", process_arm([PYTHON, "-c", "pass"], env, work)),
        Arm("import acp", process_arm([PYTHON, "-c", "import acp"], env, work)),
    ]  # fmt: skip
    if args.no_anchors:
        return out, ["anchors left out (--no-anchors)"]
    from bench import _pi_vcc as pi

    try:
        bundle = pi.setup(args.pi_vcc_src, args.pi_vcc_cache)
    except SystemExit as exc:
        notes.append(f"pi-vcc left out: {exc}")
    else:
        out += [Arm(f"pi-vcc {_k(size)}", process_arm(["node", str(bundle), "1", str(folded)],
                                                      env, work))
                for size, (_, folded) in sessions.items()]  # fmt: skip
    try:
        binary = claude_acp(Path(args.acp_anchor_cache))
    except (OSError, subprocess.CalledProcessError) as exc:
        notes.append(f"claude-code-acp left out: {exc}")
    else:
        out.append(Arm("claude init", acp_arm([str(binary)], env, work, new_session=False)))
        new = Arm("claude new", acp_arm([str(binary)], env, work, new_session=True))
        try:
            new.run()
        except RuntimeError as exc:
            notes.append(f"claude new left out: {exc}"[:300])
        else:
            out.append(new)
    return out, notes


def _k(size: int) -> str:
    return f"{size // 1000}k" if size % 1000 == 0 else str(size)


def ratios(sizes: list[int]) -> list[tuple[str, str]]:
    """The ratios reported: each arm against its anchor, then against the floors."""
    compacts = [f"compact {_k(size)}" for size in sizes]
    return [
        *((c, c.replace("compact", "pi-vcc")) for c in compacts),
        ("acp init", "claude init"), ("acp new", "claude new"),
        *((c, "py") for c in compacts),
        ("acp init", "py"), ("acp init", "import acp"), ("acp new", "import acp"),
        ("run", "py"), ("run", "import acp"),
    ]  # fmt: skip


def measure(args: argparse.Namespace, root: Path) -> str:
    found, notes = arms(args, root)
    if args.only:
        found = [arm for arm in found if arm.name.startswith(tuple(args.only))]
    for arm in found:  # one start each before timing: the page cache, bytecode, npm's files
        arm.run()
    for r in range(args.rounds):
        for arm in found[r % len(found) :] + found[: r % len(found)]:
            wall, cpu = arm.run()
            arm.walls.append(wall)
            arm.cpus.append(cpu)
    by_name = {arm.name: arm for arm in found}
    rows = [
        [arm.name, f"{percentile(arm.walls, 50) * 1000:.0f} [{min(arm.walls) * 1000:.0f}]",
         f"{percentile(arm.cpus, 50) * 1000:.0f} [{min(arm.cpus) * 1000:.0f}]"]
        for arm in found
    ]  # fmt: skip
    ratio_rows: list[list[str]] = []
    for a, b in ratios(args.sizes):
        if a in by_name and b in by_name:
            x, y = by_name[a], by_name[b]
            wall = [p / q for p, q in zip(x.walls, y.walls, strict=True)]
            cpu = [p / q for p, q in zip(x.cpus, y.cpus, strict=True)]
            ratio_rows.append([f"{a} / {b}", f"{percentile(wall, 50):.2f}x",
                               f"{percentile(cpu, 50):.2f}x"])  # fmt: skip
    lines = [
        f"CLI start, {args.rounds} rounds; {machine()}",
        "",
        table(["arm", "wall ms: median [min]", "CPU ms: median [min]"], rows),
        "",
        "Ratios, median of the rounds' (goal: compact / pi-vcc <= 1.0x)",
        table(["ratio", "wall", "CPU"], ratio_rows),
        *(f"note: {note}" for note in notes),
        f"load after: {os.getloadavg()[0]:.1f}",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument(
        "--sizes", type=lambda text: [int(n) for n in text.split(",")], default=[1000]
    )
    parser.add_argument("--quick", action="store_true", help="two rounds")
    parser.add_argument("--no-anchors", action="store_true", help="Shard arms and floors only")
    parser.add_argument(
        "--only", type=lambda text: text.split(","), default=None,
        help="the arms whose names start so, e.g. compact,pi-vcc",
    )  # fmt: skip
    parser.add_argument("--pi-vcc-src", default=None)
    parser.add_argument("--pi-vcc-cache", default=None)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    parser.add_argument(
        "--acp-anchor-cache", default=str(Path(base) / "shard-bench" / "claude-code-acp")
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds = 2
    root = Path(tempfile.mkdtemp(prefix="shard-cli-start-"))
    try:
        return measure(args, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    print(main())
