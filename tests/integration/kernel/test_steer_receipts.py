"""A real `shard` kernel and two clients: a steer's receipt reaches every client, the same."""

from __future__ import annotations

import json
import os
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


def test_inject_over_the_comm_reaches_every_client_and_the_next_prompt(
    start_kernel: StartKernel, workspace: Path
) -> None:
    km, kc = start_kernel([{"text": "seen"}])
    sender = AgentClient(kc, "client-a")
    watcher = AgentClient(another_client(km), "client-b")
    sender.attach(label="alice")
    watcher.attach(role="observer")
    reply = sender.command(
        {"type": "inject", "id": "c1", "text": "x = 42", "kind": "output", "label": "Out[3]"}
    )
    assert (reply["ok"], reply["message"]) == (True, "logged")
    injected = [watcher.wait_event("context_injected"), sender.wait_event("context_injected")]
    assert injected[0] == injected[1]
    assert (injected[0]["kind"], injected[0]["label"], injected[0]["text"]) == (
        "output",
        "Out[3]",
        "x = 42",
    )
    assert injected[0]["entry_id"] == reply["data"]["entry_id"]
    assert not any(e["type"] == "turn_start" for e in sender.events)  # no turn ran

    sender.send({"type": "prompt", "text": "what is x?"})
    sender.wait_event("turn_end")
    home = Path(os.environ["SHARD_HOME"]) / "agents" / "agent-test" / "sessions"
    [log] = list(home.glob("*.jsonl"))
    users = [
        json.loads(line)["details"]["message"]["content"][0]["text"]
        for line in log.read_text().splitlines()
        if '"role":"user"' in line.replace(" ", "")
    ]
    assert users == ['<context kind="output" label="Out[3]">\nx = 42\n</context>', "what is x?"]
