"""A real `shard` kernel and two clients: a steer's receipt reaches every client, the same."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.integration.kernel.agent_client import AgentClient
from tests.integration.kernel.conftest import StartKernel, another_client

WAIT_FOR_GO = "while [ ! -e go ]; do sleep 0.05; done; echo went"


def _receipts(client: AgentClient) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in e.items() if k not in ("seq", "ts")}
        for e in client.events
        if e["type"] == "steer_receipt"
    ]


def test_every_client_sees_the_same_steer_receipts(
    start_kernel: StartKernel, workspace: Path
) -> None:
    km, kc = start_kernel(
        [
            {"tool_calls": [{"name": "bash", "input": {"command": WAIT_FOR_GO}}]},
            {"text": "done"},
        ],
        allow="Bash(*)",
    )
    steering = AgentClient(kc, "client-a")
    watching = AgentClient(another_client(km), "client-b")
    steering.attach(label="alice")
    watching.attach(role="observer", label="bob")

    steering.send({"type": "prompt", "text": "wait for the go file"})
    steering.wait_event("tool_call")  # the tool runs until the test creates `go`
    reply = steering.command(
        {"type": "steer", "id": "c1", "text": "then say done", "steer_id": "s-1"}
    )
    assert (reply["ok"], reply["data"]) == (True, {"steer_id": "s-1"})
    assert _receipts(steering) == []  # nothing is admitted before a request carries it
    (workspace / "go").write_text("")

    for client in (steering, watching):
        client.wait_event("turn_end")
        client.pump()
    admitted = _receipts(steering)
    assert len(admitted) == 1
    assert admitted[0]["status"] == "admitted"
    assert admitted[0]["steer_id"] == "s-1"
    assert admitted[0]["text"] == "then say done"
    assert admitted[0]["entry_id"]
    turn_end = next(e for e in steering.events if e["type"] == "turn_end")
    assert admitted[0]["turn_id"] == turn_end["turn_id"]
    assert _receipts(watching) == admitted

    # the turn has ended: a steer now is rejected, with the reason, for everyone
    steering.command({"type": "steer", "id": "c2", "text": "too late", "steer_id": "s-2"})
    for client in (steering, watching):
        client.wait_for(lambda c=client: len(_receipts(c)) == 2)
    late = _receipts(steering)[1]
    assert (late["steer_id"], late["status"], late["reason"]) == (
        "s-2",
        "rejected",
        "no turn was running (send it as a prompt)",
    )
    assert _receipts(watching) == _receipts(steering)
