"""No token, cookie or API key in any log line, response body, event or JSONL — even on errors.

Canary values go everywhere a client or the environment can put them (query string,
Authorization, Cookie, Referer, the server token itself, provider keys in the kernel's
environment); then a 400, a 404, a 500 and a kernel crash are forced and every byte written
is searched.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import signal
import time
from pathlib import Path

from tornado.httpclient import HTTPResponse

from tests.integration.gateway.conftest import Server, Servers, api, body
from tests.integration.gateway.ws_agent import WsAgent

CANARY = f"canarytok{secrets.token_hex(8)}"
SERVER_TOKEN = f"canaryserver{secrets.token_hex(8)}"
ANTHROPIC_KEY = f"sk-ant-canary{secrets.token_hex(8)}"
OPENAI_KEY = f"sk-canaryopenai{secrets.token_hex(8)}"
CANARIES = (CANARY, SERVER_TOKEN, ANTHROPIC_KEY, OPENAI_KEY)
NOISY = {
    "Cookie": f"session={CANARY}; _xsrf={CANARY}",
    "Referer": f"http://127.0.0.1/lab?token={CANARY}",
    "X-Api-Key": CANARY,
}


def kernel_pids(server: Server) -> list[int]:
    found = []
    for pid in server.kernels():
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"shard_kernel" in cmdline and b"-f" in cmdline:
            found.append(pid)
    return found


async def test_no_canary_is_ever_written(servers: Servers, workspace: Path) -> None:
    keys = {"ANTHROPIC_API_KEY": ANTHROPIC_KEY, "OPENAI_API_KEY": OPENAI_KEY}
    server = servers.start(env=keys, token=SERVER_TOKEN)
    bodies: list[HTTPResponse] = []

    async def call(method: str, path: str, payload: object = None, **kw: object) -> HTTPResponse:
        response = await api(server, method, path, payload, token=SERVER_TOKEN, **kw)  # type: ignore[arg-type]
        bodies.append(response)
        return response

    for where in ({"Authorization": f"token {CANARY}"}, {"Authorization": f"Bearer {CANARY}"}):
        refused = await call("GET", "/shard/api/agents", headers={**NOISY, **where})
        assert refused.code in (401, 403)
    refused = await api(server, "GET", f"/shard/api/agents?token={CANARY}", token=None)
    bodies.append(refused)
    assert refused.code in (401, 403)

    bad = await call("POST", f"/shard/api/agents?key={CANARY}", raw=b"{oops", headers=NOISY)
    assert bad.code == 400
    missing = await call("GET", f"/shard/api/agents/agent-missing?auth={CANARY}", headers=NOISY)
    assert missing.code == 404

    model = f"scripted/{_script(workspace.parent)}"
    payload = {"cwd": str(workspace), "model": model, "permissions": {"allow": ["Bash(env:*)"]}}
    created = await call("POST", "/shard/api/agents", payload, headers=NOISY)
    assert created.code == 201, created.body
    agent = body(created)
    (pid,) = kernel_pids(server)
    assert ANTHROPIC_KEY.encode() in Path(f"/proc/{pid}/environ").read_bytes()  # really there

    await _run_env_turn(server, agent["kernel_id"])
    await _force_500(server, call, payload)
    await _crash_kernel(server, pid, agent["kernel_id"])

    server.stop()
    written = _everything_written(servers.root, Path(server.env["SHARD_HOME"]))
    written += [(f"response {r.code} {r.effective_url}", r.body or b"") for r in bodies]
    leaks = [(name, c) for name, data in written for c in CANARIES if c.encode() in data]
    assert leaks == []
    assert any(b"restarted" in data for name, data in written if name.endswith("events.jsonl"))
    assert all(b"Traceback" not in r.body for r in bodies if r.body)


def _script(folder: Path) -> Path:
    path = folder / "env-script.json"
    steps = [
        {"text": "Looking.", "tool_calls": [{"name": "bash", "input": {"command": "env"}}]},
        {"text": "Done."},
        {"text": "Back after the crash."},
    ]
    path.write_text(json.dumps({"name": "canary", "steps": steps}))
    return path


async def _run_env_turn(server: Server, kernel_id: str) -> None:
    client = await WsAgent.connect(server, kernel_id, "canary-client", headers=NOISY)
    await client.attach()
    msg_id = client.sock.execute("print the environment")
    assert (await client.wait_shell_reply(msg_id))["status"] == "ok"
    result = await client.wait_event("tool_result")
    assert "PATH=" in str(result["result"])  # env really ran
    await client.aclose()


async def _force_500(server: Server, call: object, payload: dict[str, object]) -> None:
    agents = Path(server.env["SHARD_HOME"]) / "agents"
    aside = agents.with_name("agents.aside")
    agents.rename(aside)
    agents.write_text("not a directory")
    try:
        failed = await call("POST", "/shard/api/agents", payload, headers=NOISY)  # type: ignore[operator]
        assert failed.code == 500
        assert set(body(failed)) == {"message", "status"}
    finally:
        agents.unlink()
        aside.rename(agents)


async def _crash_kernel(server: Server, pid: int, kernel_id: str) -> None:
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        alive = [p for p in kernel_pids(server) if p != pid]
        if alive:
            break
        await asyncio.sleep(0.2)
    client = await WsAgent.connect(server, kernel_id, "after-crash", headers=NOISY)
    snapshot = await client.attach(since=-1)
    assert any(e["type"] == "restarted" for e in snapshot["events"])
    msg_id = client.sock.execute("are you back?")
    assert (await client.wait_shell_reply(msg_id))["status"] == "ok"
    await client.aclose()


def _everything_written(root: Path, home: Path) -> list[tuple[str, bytes]]:
    files = [p for p in root.rglob("*") if p.is_file() and p.suffix in (".log", ".jsonl", ".json")]
    files += [p for p in home.rglob("*") if p.is_file()]
    return [(str(p), p.read_bytes()) for p in sorted(set(files))]
