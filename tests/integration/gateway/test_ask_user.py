"""`ask_user` over a real gateway: the question is pending like a permission prompt. A second
client that attaches mid-question gets it in its snapshot; an answer that is not a choice is
refused to its sender and the question stays open; the second client's answer wins, the first
client sees who answered (`ui_resolved`), a late answer is told who did, and the model's
result names the answer and who gave it."""

from __future__ import annotations

from pathlib import Path

from tests.integration.gateway.conftest import Servers, api, body, write_script
from tests.integration.gateway.ws_agent import WsAgent

ASK = {"question": "Which database?", "choices": ["sqlite", "postgres"], "allow_other": False}
SCRIPT = [
    {"tool_calls": [{"name": "ask_user", "input": ASK}]},
    {"text": "Going with it.", "expect": {"last_tool_result_contains": "Bea answered: postgres"}},
]


async def test_a_second_client_answers_and_the_first_sees_who(
    servers: Servers, workspace: Path
) -> None:
    server = servers.start()
    model = write_script(workspace.parent, SCRIPT)
    created = await api(
        server, "POST", "/shard/api/agents", {"cwd": str(workspace), "model": model}
    )
    agent = body(created)
    first = await WsAgent.connect(server, agent["kernel_id"], "first")
    await first.attach()
    msg_id = first.sock.execute("pick a database")
    request = await first.wait_event("ui_request")
    assert (request["ui"], request["title"], request["options"]) == (
        "question",
        "Which database?",
        ["sqlite", "postgres"],
    )
    assert (request["multi"], request["allow_other"]) == (False, False)

    second = await WsAgent.connect(server, agent["kernel_id"], "second")
    snapshot = await second.attach()
    assert [p["request_id"] for p in snapshot["pending_ui"]] == [request["request_id"]]

    def answer(value: object) -> dict[str, object]:
        return {"type": "ui_response", "request_id": request["request_id"], "value": value,
                "client_id": "second", "label": "Bea"}  # fmt: skip

    refused = await second.command(answer(["mysql"]))
    assert refused["ok"] is False
    assert refused["message"] == (
        "'mysql' is not one of the choices: 'sqlite', 'postgres'; the question is still open"
    )
    accepted = await second.command(answer(["postgres"]))
    assert accepted["ok"] is True, accepted
    resolved = await first.wait_event("ui_resolved")
    assert (resolved["value"], resolved["decided_by"], resolved["client_id"]) == (
        ["postgres"],
        "Bea",
        "second",
    )
    late = await first.command({**answer(["sqlite"]), "client_id": "first", "label": None})
    assert (late["ok"], late["message"]) == (False, "already decided by Bea")
    assert (await first.wait_shell_reply(msg_id))["status"] == "ok"
    end = await first.wait_event("turn_end")
    assert end["reason"] == "completed"
    results = [e for e in first.events if e["type"] == "tool_result"]
    assert results[-1]["result"]["content"][0]["text"] == "Bea answered: postgres"
    texts = [e for e in first.events if e["type"] == "message_complete"]
    assert "Going with it." in str(texts[-1])
    await first.aclose()
    await second.aclose()
