"""Checkpoints: cost per edit, store size against git, rewind of 200 files against git checkout.

1. An `edit` tool call on a 100 KB file with the checkpoint hooks (`tool_call` keeps the prior
   content, `tool_result` logs the files checkpoint) against the same call without them,
   alternating. Goal: <= 2 ms p50 added, <= 1.2x.
2. The store after 1,000 one-line edits of one 100 KB file against git's loose objects for the
   same 1,000 commits (`git count-objects -v`, on-disk KiB), and after `git gc`. Goal: <= 1.0x
   loose; the gc ratio is reported.
3. A rewind of a change to 200 files (about 2 KB each) against `git checkout -- .` of the same
   change, alternating. Goal: <= 1.5x.

    python bench/checkpoints.py [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: the engine lives at the repo root
    sys.path.insert(0, str(ROOT))

from bench._common import machine, ms, ratio, summarize, table  # noqa: E402
from shard_core.capabilities.checkpoints.rewind import Rewinder  # noqa: E402
from shard_core.capabilities.checkpoints.store import BlobStore  # noqa: E402
from shard_core.capabilities.checkpoints.tracker import Tracker  # noqa: E402
from shard_core.capabilities.checkpoints.workspace import Workspace  # noqa: E402
from shard_core.contracts import ToolContext  # noqa: E402
from shard_core.engine.session_store import SessionStore  # noqa: E402
from shard_core.protocol.events import ToolCallEvent, ToolResultEvent  # noqa: E402
from shard_core.tools.edit import EditTool  # noqa: E402
from shard_core.types import MessageDetails, MessageEntry, TextBlock, ToolCallBlock, UserMessage  # noqa: E402

GIT_ENV = {
    "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.invalid",
    "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.invalid",
    "PATH": "/usr/bin:/bin", "HOME": "/nonexistent",
}  # fmt: skip


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, env=GIT_ENV, capture_output=True, text=True, check=True
    ).stdout


def du(folder: Path) -> int:
    """On-disk bytes (blocks), as `git count-objects` counts them."""
    total = 0
    for path in folder.rglob("*"):
        if path.is_file():
            total += path.stat().st_blocks * 512
    return total


def _text(lines: int = 1700) -> str:
    return "".join(
        f"line {i:05d}: the quick brown fox jumps over the lazy dog\n" for i in range(lines)
    )


def _turn(store: SessionStore, n: int) -> None:
    store.append(
        MessageEntry,
        MessageDetails(message=UserMessage(content=[TextBlock(text=f"turn {n}")]), turn_id=f"t{n}"),
    )


def _events(
    call: ToolCallBlock, entry_id: str, result: Any
) -> tuple[ToolCallEvent, ToolResultEvent]:
    start = ToolCallEvent(agent_id="b", seq=0, ts=0.0, turn_id="t", call=call)
    end = ToolResultEvent(
        agent_id="b", seq=1, ts=0.0, turn_id="t", tool_call_id=call.id, name=call.name,
        entry_id=entry_id, result=result,
    )  # fmt: skip
    return start, end


async def edit_cost(tmp: Path, runs: int) -> list[list[str]]:
    ws = tmp / "edit"
    ws.mkdir()
    (ws / "hooked.txt").write_text(_text())  # each file sees only its own kind of call
    (ws / "plain.txt").write_text(_text())
    store = SessionStore.create(tmp / "sessions", ws)
    workspace = Workspace(ws, BlobStore(tmp / "home-edit"))
    tracker = Tracker(workspace, lambda: store)
    tool = EditTool()
    ctx = ToolContext(cwd=ws, roots=[ws], agent_id="b", session_id="s", call_id="c")
    plain: list[float] = []
    hooked: list[float] = []
    for i in range(runs * 2):  # alternating: even calls with the hooks, odd ones without
        old, new = f"line {i:05d}:", f"LINE {i:05d}:"
        with_hooks = i % 2 == 0
        name = "hooked.txt" if with_hooks else "plain.txt"
        given = {"path": name, "old_string": old, "new_string": new}
        call = ToolCallBlock(id=f"c{i}", name="edit", input=given)
        began = time.perf_counter()
        if with_hooks:
            tracker.tool_call(_events(call, "e", _ok())[0])
        result = await tool.execute(call.input, ctx)
        if with_hooks:
            tracker.tool_result(_events(call, f"e{i}", result)[1])
        took = time.perf_counter() - began
        assert not result.is_error, result.text
        (hooked if with_hooks else plain).append(took)
    store.close()
    p, h = summarize(plain), summarize(hooked)
    return [
        ["edit, 100 KB file, no checkpoints", ms(p.median), ms(p.p90), ""],
        ["edit, 100 KB file, checkpoints", ms(h.median), ms(h.p90), ratio(h.median, p.median)],
        ["added per edit (p50)", ms(h.median - p.median), "", "goal <= 2 ms, <= 1.2x"],
    ]


def _ok() -> Any:
    from shard_core.types import ToolResult

    return ToolResult.ok("")


def store_size(tmp: Path, edits: int) -> list[list[str]]:
    ws = tmp / "size"
    ws.mkdir()
    repo = tmp / "size-git"
    repo.mkdir()
    git(repo, "init", "-q")
    lines = _text().splitlines(keepends=True)
    home = tmp / "home-size"
    workspace = Workspace(ws, BlobStore(home))
    for i in range(edits):
        lines[i % len(lines)] = f"edit {i}: one line changed\n"
        data = "".join(lines)
        (ws / "big.txt").write_text(data)
        workspace.state("big.txt")
        (repo / "big.txt").write_text(data)
        git(repo, "add", "big.txt")
        git(repo, "commit", "-q", "-m", f"edit {i}")
    workspace.blobs.flush()
    ours = du(home / "objects")
    counted = dict(line.split(": ") for line in git(repo, "count-objects", "-v").splitlines())
    loose = int(counted["size"]) * 1024
    git(repo, "gc", "-q")
    counted = dict(line.split(": ") for line in git(repo, "count-objects", "-v").splitlines())
    packed = (int(counted["size"]) + int(counted["size-pack"])) * 1024
    kib = lambda n: f"{n / 1024:,.0f} KiB"  # noqa: E731
    return [
        [f"checkpoint store, {edits} edits", kib(ours), ratio(ours, loose), "goal <= 1.0x loose"],
        [f"git loose objects, {edits} commits", kib(loose), "1.00x", ""],
        ["git after gc (packed, deltas)", kib(packed), ratio(ours, packed), "store / packed"],
    ]


def rewind_cost(tmp: Path, rounds: int, files: int = 200) -> list[list[str]]:
    ws = tmp / "rewind"
    ws.mkdir()
    text = _text(35)  # about 2 KB
    for i in range(files):
        (ws / f"f{i:03d}.txt").write_text(text)
    git(ws, "init", "-q")
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "start")
    store = SessionStore.create(tmp / "sessions-rw", ws)
    workspace = Workspace(ws, BlobStore(tmp / "home-rw"))
    tracker = Tracker(workspace, lambda: store)
    rewinder = Rewinder(store, workspace)
    ours: list[float] = []
    theirs: list[float] = []
    for n in range(1, rounds + 1):
        _turn(store, n)
        call = ToolCallBlock(id=f"b{n}", name="bash", input={"command": "rewrite"})
        tracker.tool_call(_events(call, "x", _ok())[0])
        for i in range(files):
            (ws / f"f{i:03d}.txt").write_text(text + f"changed {n}\n")
        tracker.tool_result(_events(call, store.leaf_id or "x", _ok())[1])
        began = time.perf_counter()
        result = rewinder.rewind(str(n), "code")
        ours.append(time.perf_counter() - began)
        assert len(result.restored) == files, result.failed
        for i in range(files):
            (ws / f"f{i:03d}.txt").write_text(text + f"changed {n}\n")
        began = time.perf_counter()
        git(ws, "checkout", "--", ".")
        theirs.append(time.perf_counter() - began)
        assert (ws / "f000.txt").read_text() == text
    store.close()
    o, t = summarize(ours), summarize(theirs)
    return [
        [f"rewind of {files} files", ms(o.median), ms(o.p90), ratio(o.median, t.median)],
        [f"git checkout -- . ({files} files)", ms(t.median), ms(t.p90), "goal <= 1.5x"],
    ]


async def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    runs, edits, rounds = (20, 50, 2) if args.quick else (200, 1000, 7)
    print(machine())
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR")) as raw:
        tmp = Path(raw)
        print(table(["edit tool call", "p50", "p90", "ratio"], await edit_cost(tmp, runs)))
        print()
        print(table(["store", "on disk", "ratio", "note"], store_size(tmp, edits)))
        print()
        print(table(["rewind", "p50", "p90", "ratio"], rewind_cost(tmp, rounds)))


if __name__ == "__main__":
    asyncio.run(main())
