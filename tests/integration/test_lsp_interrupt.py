"""The language server outlives a Jupyter interrupt of its agent: jupyter_client interrupts a
kernel (and begins every shutdown) with a SIGINT to the kernel's process group, which ended
pyright with it ("exited with return code: -2" on the kernel's stderr at `shard demo`'s end).
A process of its own session plays the kernel here: its diagnostics, a SIGINT to its whole
group as jupyter_client sends it, and its diagnostics again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from shard_core.capabilities.code_index.lsp import find_server

KERNEL = """
import asyncio, json, os, signal, sys
from pathlib import Path
from shard_core.capabilities.code_index.lsp import Diagnostics, find_server

signal.signal(signal.SIGINT, lambda *_: None)  # as ipykernel: an interrupt is not an exit
root = Path(sys.argv[1])

async def main() -> None:
    diagnostics = Diagnostics(root, find_server(), timeout=120)
    seen = {}
    try:
        found = await diagnostics.check(root / "m.py")
        seen["before"] = [f.message.splitlines()[0] for f in found[1]] if found else None
        os.killpg(os.getpgid(0), signal.SIGINT)  # what KernelManager.interrupt_kernel sends
        (root / "m.py").write_text("y: str = 1\\n")
        found = await diagnostics.check(root / "m.py")
        seen["after"] = [f.message.splitlines()[0] for f in found[1]] if found else None
        seen["status"] = diagnostics.status
        process = diagnostics.server._client._server  # a server that dies on its own
        os.killpg(process.pid, signal.SIGKILL)
        for _ in range(1200):  # its own loop (the server's thread) sees it exit
            if diagnostics.server.exited is not None:
                break
            await asyncio.sleep(0.05)
        seen["killed"] = diagnostics.status
    finally:
        await diagnostics.close()
    print(json.dumps(seen))

asyncio.run(main())
"""


@pytest.mark.skipif(find_server() is None, reason="no Python language server installed")
def test_an_interrupt_of_the_agents_process_group_leaves_its_language_server_running(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "m.py").write_text("x: int = 'no'\n")
    done = subprocess.run(
        [sys.executable, "-c", KERNEL, str(root)],
        capture_output=True, text=True, timeout=300, start_new_session=True, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")
    seen = json.loads(done.stdout)
    assert seen["before"] == ['Type "Literal[\'no\']" is not assignable to declared type "int"']
    assert seen["after"] == ['Type "Literal[1]" is not assignable to declared type "str"']
    server = find_server()
    assert server is not None
    name = Path(server[0]).name
    assert (seen["status"], seen["killed"]) == (
        f"{name}: running",
        f"{name}: exited with status -9",
    )
