"""A real `shard` kernel: what a person deciding sees (the preview), and who decided, by name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.integration.kernel.agent_client import AgentClient
from tests.integration.kernel.conftest import StartKernel, another_client

RENDER = "application/vnd.shard.render+json"


def _reply(kc: Any, msg_id: str, timeout: float = 60) -> dict[str, Any]:
    reply = kc.get_shell_msg(timeout=timeout)
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = kc.get_shell_msg(timeout=timeout)
    return reply["content"]


def _texts(client: AgentClient) -> list[str]:
    return [
        m["content"]["data"]["text/plain"]
        for m in client.outputs
        if RENDER in m["content"].get("data", {})
    ]


def test_a_write_is_previewed_and_the_answer_names_its_client(
    start_kernel: StartKernel, workspace: Path
) -> None:
    (workspace / "out.txt").write_text("old\n")
    km, kc_a = start_kernel(
        [
            {"tool_calls": [{"name": "write", "input": {"path": "out.txt", "content": "new\n"}}]},
            {"text": "Wrote it."},
        ]
    )
    kc_b = another_client(km)
    try:
        a = AgentClient(kc_a, "client-a")
        b = AgentClient(kc_b, "client-b")
        a.attach()
        b.attach(label="alice\x1b · Tab 2")
        msg_id = kc_a.execute("write out.txt")
        request = b.wait_event("permission_request")
        assert request["preview"] == [
            {
                "kind": "diff",
                "version": 1,
                "path": "out.txt",
                "status": "modified",
                "hunks": [
                    {
                        "old_start": 1,
                        "old_lines": 1,
                        "new_start": 1,
                        "new_lines": 1,
                        "lines": ["-old", "+new"],
                    }
                ],
            }
        ]
        answer = {"type": "permission_response", "request_id": request["request_id"]}
        assert b.command({**answer, "decision": "allow", "client_id": "client-b"})["ok"] is True
        late = a.command({**answer, "decision": "deny", "client_id": "client-a", "label": "bob"})
        assert (late["ok"], late["message"]) == (False, "already decided by alice · Tab 2 (allow)")
        assert _reply(kc_a, msg_id)["status"] == "ok"
        resolved = a.wait_event("permission_resolved")
        assert {k: v for k, v in resolved.items() if k not in ("seq", "ts")} == {
            "type": "permission_resolved",
            "agent_id": "agent-test",
            "request_id": request["request_id"],
            "decision": "allow",
            "decided_by": "alice · Tab 2",
            "source": "client",
            "reason": None,
            "rule": None,
            "client_id": "client-b",
            "tool_call_id": request["tool_call_id"],
            "scope": None,
        }
        a.pump(0.3)
        assert "allowed by alice · Tab 2" in _texts(a)
    finally:
        kc_b.stop_channels()


def test_a_call_a_rule_allows_says_which_rule(start_kernel: StartKernel, workspace: Path) -> None:
    _, kc = start_kernel(
        [
            {"tool_calls": [{"name": "bash", "input": {"command": "touch made.txt"}}]},
            {"text": "Made it."},
        ],
        allow="Bash(touch:*)",
    )
    client = AgentClient(kc, "client-a")
    client.attach()
    assert _reply(kc, kc.execute("make a file"))["status"] == "ok"
    client.pump(0.3)
    assert (workspace / "made.txt").exists()
    kinds = [e["type"] for e in client.events]
    assert "permission_request" not in kinds
    [resolved] = [e for e in client.events if e["type"] == "permission_resolved"]
    [call] = [e for e in client.events if e["type"] == "tool_call"]
    assert (resolved["source"], resolved["rule"], resolved["decided_by"]) == (
        "rule",
        "Bash(touch:*)",
        "Bash(touch:*)",
    )
    assert resolved["tool_call_id"] == call["call"]["id"]
    assert (
        "allowed by rule Bash(touch:*): every command is allowed: `touch made.txt` by "
        "Bash(touch:*) (kernel environment KERNEL_SHARD_ALLOW/DENY)" in _texts(client)
    )


def _status_clients(kc: Any) -> str:
    msg_id = kc.execute("/status")
    assert _reply(kc, msg_id)["status"] == "ok"
    while True:
        msg = kc.get_iopub_msg(timeout=30)
        if msg["parent_header"].get("msg_id") == msg_id and msg["header"]["msg_type"] == (
            "display_data"
        ):
            table = msg["content"]["data"]["text/markdown"]
            return next(row for row in table.splitlines() if row.startswith("| clients |"))


def test_status_counts_the_notebook_that_asks(start_kernel: StartKernel) -> None:
    km, kc = start_kernel([{"text": "hi"}])
    assert _status_clients(kc) == "| clients | 1 interactive (this notebook), 0 observers |"

    kc_b = another_client(km)
    try:
        AgentClient(kc_b, "client-b").attach(label="alice | <b>Tab</b>")
        AgentClient(kc_b, "client-c").attach(role="observer")
        AgentClient(kc, "client-self").attach()  # this notebook's own comm: counted once
        assert _status_clients(kc) == (
            r"| clients | 2 interactive (alice \| \<b\>Tab\<\/b\>, this notebook), "
            r"1 observer (client\-c) |"
        )
    finally:
        kc_b.stop_channels()
