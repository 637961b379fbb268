"""While a turn waits for a permission answer, a second client's kernel_info_request and
comm_info_request are answered at once, not after the cell: JupyterLab sends a new connection's
messages (the `shard` comm_open among them) only after kernel_info is answered, or after a 3 s
fallback. The cell's own outputs keep their parent, and the turn goes on when answered."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.integration.kernel.agent_client import AgentClient
from tests.integration.kernel.conftest import StartKernel, another_client


def _shell_reply(kc: Any, msg_id: str, timeout: float = 60) -> dict[str, Any]:
    reply = kc.get_shell_msg(timeout=timeout)
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = kc.get_shell_msg(timeout=timeout)
    return reply


def _states(kc: Any, msg_id: str, timeout: float = 30) -> list[str]:
    """The execution states IOPub published for request `msg_id`, up to its idle."""
    states: list[str] = []
    while "idle" not in states:
        msg = kc.get_iopub_msg(timeout=timeout)
        if msg["msg_type"] == "status" and msg["parent_header"].get("msg_id") == msg_id:
            states.append(msg["content"]["execution_state"])
    return states


def test_kernel_info_and_comm_info_are_answered_while_a_turn_waits(
    start_kernel: StartKernel, workspace: Path
) -> None:
    km, kc_a = start_kernel(
        [
            {"tool_calls": [{"name": "write", "input": {"path": "out.txt", "content": "x\n"}}]},
            {"text": "Wrote it."},
        ]
    )
    kc_b = another_client(km)
    try:
        a = AgentClient(kc_a, "client-a")
        a.attach()
        cell = kc_a.execute("write out.txt")
        request = a.wait_event("permission_request")

        asked = kc_b.kernel_info()
        info = _shell_reply(kc_b, asked)
        assert info["content"]["status"] == "ok"
        assert info["content"]["implementation"] == "shard"
        # done for a client only with its idle too (JupyterLab's futures wait for both)
        assert _states(kc_b, asked) == ["busy", "idle"]
        comms = _shell_reply(kc_b, kc_b.comm_info(target_name="shard"))
        assert list(comms["content"]["comms"].values()) == [{"target_name": "shard"}]
        # both came while the cell still waits: nothing has answered the prompt yet
        assert not (workspace / "out.txt").exists()
        assert [e for e in a.events if e["type"] == "permission_resolved"] == []

        b = AgentClient(kc_b, "client-b")
        snapshot = b.attach()
        assert [p["request_id"] for p in snapshot["pending_permissions"]] == [request["request_id"]]
        answer = {"type": "permission_response", "request_id": request["request_id"]}
        assert b.command({**answer, "decision": "allow", "client_id": "client-b"})["ok"] is True
        assert _shell_reply(kc_a, cell)["content"]["status"] == "ok"
        assert (workspace / "out.txt").read_text() == "x\n"
        a.pump(0.3)
        # the cell's outputs still name the cell's request as their parent
        outputs = [m for m in a.outputs if m["header"]["msg_type"] == "display_data"]
        assert outputs
        assert {m["parent_header"]["msg_id"] for m in outputs} == {cell}
    finally:
        kc_b.stop_channels()
