"""A real `shard` kernel: a long python_exec's progress reaches every attached client as
`tool_update` events (through the comm broadcast, batched like the rest) before its result, and
is not replayed to a client that attaches later (never logged)."""

from __future__ import annotations

from typing import Any

from tests.integration.kernel.agent_client import AgentClient
from tests.integration.kernel.conftest import StartKernel, another_client

TICKS = "import time\nfor i in range(8):\n    print('tick', i, flush=True)\n    time.sleep(0.25)"


def _updates_before_result(client: AgentClient) -> list[dict[str, Any]]:
    types = [e["type"] for e in client.events]
    at = types.index("tool_result")
    assert "tool_update" not in types[at:]  # the result wins
    return [e for e in client.events[:at] if e["type"] == "tool_update"]


def test_every_client_sees_a_long_cells_progress_before_its_result(
    start_kernel: StartKernel,
) -> None:
    km, kc = start_kernel(
        [
            {"tool_calls": [{"name": "python_exec", "input": {"code": TICKS}}]},
            {"text": "counted"},
        ],
        allow="PythonExec",
    )
    driver = AgentClient(kc, "client-a")
    watcher = AgentClient(another_client(km), "client-b")
    driver.attach(label="alice")
    watcher.attach(role="observer", label="bob")
    driver.send({"type": "prompt", "text": "count slowly"})
    for client in (driver, watcher):
        client.wait_event("turn_end", timeout=90)
        client.pump()
    result = next(e for e in driver.events if e["type"] == "tool_result")
    assert "tick 7" in result["result"]["content"][0]["text"]
    for client in (driver, watcher):
        updates = _updates_before_result(client)
        assert updates, f"{client.client_id} saw no tool_update"
        assert {u["tool_call_id"] for u in updates} == {result["tool_call_id"]}
        first = updates[0]["partial"]
        assert first["content"][0]["text"].startswith("[stdout]\ntick 0")
        assert first["render"][0]["kind"] == "progress"
    # a client that attaches now replays the log: the result, none of the transient updates
    late = AgentClient(another_client(km), "client-c")
    snapshot = late.attach(role="observer")
    replayed = [e["type"] for e in snapshot["events"]]
    assert "tool_result" in replayed
    assert "tool_update" not in replayed
