"""The agent registry over REST: create, list, status, kill, attach (resume), events, bad input."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from tests.integration.gateway.conftest import Servers, api, body, write_script
from tests.integration.gateway.ws_agent import WsAgent

REMEMBER = [
    {"text": "Reading.", "tool_calls": [{"name": "read", "input": {"path": "notes.txt"}}]},
    {"text": "It says hello."},
    {
        "text": "I remember the notes.",
        "expect": {"last_tool_result_contains": "hello-from-turn-one"},
    },
]
INFO_FIELDS = {
    "id", "name", "cwd", "model", "mode", "status", "runtime_state", "clients", "usage",
    "created", "kernel_id", "headless_policy", "clients_by_role", "error",
}  # fmt: skip


async def prompt(server: Any, kernel_id: str, text: str) -> list[dict[str, Any]]:
    client = await WsAgent.connect(server, kernel_id, "prompter")
    await client.attach()
    after = len(client.events)
    msg_id = client.sock.execute(text)
    assert (await client.wait_shell_reply(msg_id))["status"] == "ok"
    await client.wait_event("turn_end", after=after)
    await client.aclose()
    return client.events[after:]


def texts(events: list[dict[str, Any]]) -> str:
    complete = [e for e in events if e["type"] == "message_complete"]
    return " ".join(b.get("text", "") for e in complete for b in e["message"]["content"])


async def test_create_list_kill_restart_and_resume(servers: Servers, workspace: Path) -> None:
    (workspace / "notes.txt").write_text("hello-from-turn-one\n")
    model = write_script(workspace.parent, REMEMBER)
    server = servers.start()
    created = await api(
        server,
        "POST",
        "/shard/api/agents",
        {"cwd": str(workspace), "model": model, "name": "notes"},
    )
    assert created.code == 201, created.body
    agent = body(created)
    assert set(agent) >= INFO_FIELDS
    assert (agent["id"][:6], agent["name"]) == ("agent-", "notes")
    assert (agent["runtime_state"], agent["status"]) == ("running", "idle")
    manifest = Path(server.env["SHARD_HOME"]) / "agents" / agent["id"] / "manifest.json"
    assert json.loads(manifest.read_text())["cwd"] == str(workspace.resolve())
    assert manifest.stat().st_mode & 0o777 == 0o600

    first = await prompt(server, agent["kernel_id"], "what is in notes.txt?")
    assert "It says hello." in texts(first)
    listed = body(await api(server, "GET", "/shard/api/agents"))["agents"]
    assert [(a["id"], a["runtime_state"]) for a in listed] == [(agent["id"], "running")]
    assert listed[0]["usage"]["output_tokens"] > 0
    assert listed[0]["model"] == model  # as created, also once the kernel reports its status

    killed = await api(server, "DELETE", f"/shard/api/agents/{agent['id']}")
    assert (body(killed)["runtime_state"], body(killed)["kernel_id"]) == ("stopped", None)
    listed = body(await api(server, "GET", "/shard/api/agents"))["agents"]
    assert [a["runtime_state"] for a in listed] == ["stopped"]
    assert server.stop() == []  # the server took its kernels with it

    again = servers.start()
    listed = body(await api(again, "GET", "/shard/api/agents"))["agents"]
    assert [(a["id"], a["name"], a["runtime_state"]) for a in listed] == [
        (agent["id"], "notes", "stopped")
    ]
    attached = body(await api(again, "POST", f"/shard/api/agents/{agent['id']}/attach"))
    assert attached["runtime_state"] == "running"
    assert attached["channels"] == f"/api/kernels/{attached['kernel_id']}/channels"
    second = await prompt(again, attached["kernel_id"], "do you remember?")
    assert "I remember the notes." in texts(second)
    assert "[scripted demo]" not in texts(second)

    history = body(await api(again, "GET", f"/shard/api/agents/{agent['id']}/events?since=-1"))
    kinds = [e["type"] for e in history["events"]]
    assert ("restarted" in kinds, kinds.count("turn_start")) == (True, 2)
    seqs = [e["seq"] for e in history["events"]]
    assert seqs == sorted(seqs)
    assert history["last_seq"] == seqs[-1]
    page = body(await api(again, "GET", f"/shard/api/agents/{agent['id']}/events?since=2&limit=3"))
    assert [e["seq"] for e in page["events"]] == [s for s in seqs if s > 2][:3]
    assert (page["has_more"], page["next_since"]) == (True, page["events"][-1]["seq"])


async def test_concurrent_attaches_start_one_kernel(servers: Servers, workspace: Path) -> None:
    server = servers.start()
    agent = body(await api(server, "POST", "/shard/api/agents", {"cwd": str(workspace)}))
    await api(server, "DELETE", f"/shard/api/agents/{agent['id']}")
    before = body(await api(server, "GET", "/api/kernels"))
    assert before == []
    replies = await asyncio.gather(
        *(api(server, "POST", f"/shard/api/agents/{agent['id']}/attach") for _ in range(5))
    )
    assert [r.code for r in replies] == [200] * 5
    assert len({body(r)["kernel_id"] for r in replies}) == 1
    kernels = body(await api(server, "GET", "/api/kernels"))
    assert [k["id"] for k in kernels] == [body(replies[0])["kernel_id"]]


async def test_bad_requests_say_what_to_fix(servers: Servers, workspace: Path) -> None:
    server = servers.start()
    a_file = workspace / "file.txt"
    a_file.write_text("x")
    cases: list[tuple[bytes | dict[str, Any], int, str]] = [
        (b"{not json", 400, "not valid JSON"),
        (b"[1, 2]", 400, "must be a JSON object"),
        ({}, 400, "cwd: Field required"),
        ({"cwd": str(workspace / "missing")}, 400, "does not exist"),
        ({"cwd": str(a_file)}, 400, "is not a directory"),
        ({"cwd": "relative/path"}, 400, "must be an absolute path"),
        ({"cwd": str(workspace), "model": "gpt-5"}, 400, "bad model 'gpt-5'"),
        ({"cwd": str(workspace), "model": "acme/x"}, 400, "unknown provider 'acme'"),
        ({"cwd": str(workspace), "mode": "yolo"}, 400, "mode 'yolo' is unknown"),
        ({"cwd": str(workspace), "headless_policy": "maybe"}, 400, "headless_policy"),
        ({"cwd": str(workspace), "permission_timeout": 0}, 400, "permission_timeout"),
        ({"cwd": str(workspace), "colour": "red"}, 400, "colour: unknown field"),
        ({"cwd": str(workspace), "permissions": {"allow": ["Bash("]}}, 400, "permissions.allow"),
        ({"cwd": str(workspace), "name": "../etc"}, 400, "name must be"),
        ({"cwd": str(workspace), "name": "twin "}, 400, "not ending with a space"),
        ({"cwd": "/" + "a" * 5000}, 400, "cannot be used: file name too long"),
        ({"cwd": str(workspace / "file.txt" / "x")}, 400, "cwd"),
        (b'{"cwd": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", 400, "nests too deeply"),
    ]
    for request, code, message in cases:
        raw = request if isinstance(request, bytes) else json.dumps(request).encode()
        response = await api(server, "POST", "/shard/api/agents", raw=raw)
        assert (response.code, message in body(response)["message"]) == (code, True), (
            request, response.body)  # fmt: skip
        assert "Traceback" not in response.body.decode()
    taken = {"cwd": str(workspace), "name": "twin"}
    assert (await api(server, "POST", "/shard/api/agents", taken)).code == 201
    clash = await api(server, "POST", "/shard/api/agents", taken)
    assert (clash.code, "taken" in body(clash)["message"]) == (409, True)
    clash = await api(server, "POST", "/shard/api/agents", {**taken, "name": "TWIN"})
    assert (clash.code, "taken" in body(clash)["message"]) == (409, True)
    for path in ("/shard/api/agents/agent-nope", "/shard/api/agents/nope/events"):
        missing = await api(server, "GET", path)
        assert (missing.code, body(missing)["message"].startswith("no agent")) == (404, True)
    listed = body(await api(server, "GET", "/shard/api/agents"))["agents"]
    assert [a["name"] for a in listed] == ["twin"]  # nothing else was created
    agent_id = listed[0]["id"]
    bad_page = await api(server, "GET", f"/shard/api/agents/{agent_id}/events?limit=0")
    assert (bad_page.code, "limit must be at least 1" in body(bad_page)["message"]) == (400, True)


async def test_generated_names_are_friendly_and_unique(servers: Servers, workspace: Path) -> None:
    server = servers.start()
    names = []
    for _ in range(3):
        created = await api(server, "POST", "/shard/api/agents", {"cwd": str(workspace)})
        names.append(body(created)["name"])
    assert names == ["ws", "ws-2", "ws-3"]


def _open_fds(pid: int) -> int:
    return len(list(Path(f"/proc/{pid}/fd").iterdir()))


async def test_a_client_leaving_while_its_agent_stops_leaves_nothing_open(
    servers: Servers, workspace: Path
) -> None:
    """jupyter_server drops a kernel's message buffer when its shutdown begins, then awaits the
    shutdown; the last client closing in between started a new buffer that nothing ended (its
    kernel channels and shared IOPub stayed open for the life of the server)."""
    model = write_script(workspace.parent, [{"text": "Hi."}])
    server = servers.start()
    created = await api(
        server, "POST", "/shard/api/agents", {"cwd": str(workspace), "model": model}
    )
    agent_id = body(created)["id"]
    await api(server, "DELETE", f"/shard/api/agents/{agent_id}")
    before = _open_fds(server.proc.pid)
    for _ in range(4):
        attached = body(await api(server, "POST", f"/shard/api/agents/{agent_id}/attach"))
        client = await WsAgent.connect(server, attached["kernel_id"], "leaving")
        await client.attach(role="observer")
        stopping = asyncio.create_task(api(server, "DELETE", f"/shard/api/agents/{agent_id}"))
        await asyncio.sleep(0.05)  # the shutdown has begun and awaits the kernel's exit
        await client.aclose()
        assert (await stopping).code == 200
    for _ in range(50):  # closed streams give their descriptors back soon, not at once
        if _open_fds(server.proc.pid) <= before + 2:
            break
        await asyncio.sleep(0.1)
    assert _open_fds(server.proc.pid) <= before + 2, (before, _open_fds(server.proc.pid))
