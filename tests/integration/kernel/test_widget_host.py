"""The kernel-hosted PermissionDialog, with the test playing the widget front end over ZMQ.

What JupyterLab's widget manager does, done by hand: ask for `jupyter.widget` comm info on
connect, take the kernel's comm_open on target `jupyter.widget`, and click by sending the
ipywidgets 8 custom message `{"method": "custom", "content": <permission_response>}` on it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.blocking.client import BlockingKernelClient

from tests.integration.kernel.agent_client import AgentClient
from tests.integration.kernel.conftest import StartKernel, another_client

pytestmark = pytest.mark.integration

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
PERMISSION = "application/vnd.shard.permission+json"
WRITE = [
    {"tool_calls": [{"name": "write", "input": {"path": "out.txt", "content": "hi\n"}}]},
    {"text": "Wrote it."},
]


class WidgetFrontEnd:
    """Every IOPub message of one client, and the widget side of the protocol."""

    def __init__(self, kc: BlockingKernelClient) -> None:
        self.kc = kc
        self.iopub: list[dict[str, Any]] = []

    def announce(self) -> dict[str, Any]:
        """What Lab's widget manager sends when it connects: marks this session as a renderer."""
        msg_id = self.kc.comm_info(target_name="jupyter.widget")
        return self.shell_reply(msg_id)["content"]

    def shell_reply(self, msg_id: str, timeout: float = 30) -> dict[str, Any]:
        while True:
            reply = self.kc.get_shell_msg(timeout=timeout)
            if reply["parent_header"].get("msg_id") == msg_id:
                return reply

    def wait(self, predicate: Any, timeout: float = 30) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            found = next((m for m in self.iopub if predicate(m)), None)
            if found is not None:
                return found
            if time.monotonic() > deadline:
                kinds = [m["header"]["msg_type"] for m in self.iopub][-30:]
                raise TimeoutError(f"no such IOPub message; last seen {kinds}")
            try:
                self.iopub.append(self.kc.get_iopub_msg(timeout=0.1))
            except Exception:
                continue

    def dialog_opened(self) -> dict[str, Any]:
        return self.wait(
            lambda m: (
                m["header"]["msg_type"] == "comm_open"
                and m["content"]["target_name"] == "jupyter.widget"
                and "request" in m["content"]["data"]["state"]
            )
        )

    def dialog_shown(self, comm_id: str) -> dict[str, Any]:
        return self.wait(
            lambda m: (
                m["header"]["msg_type"] == "update_display_data"
                and m["content"]["data"].get(WIDGET_VIEW, {}).get("model_id") == comm_id
            )
        )

    def click(self, comm_id: str, content: dict[str, Any]) -> None:
        data = {"method": "custom", "content": content}
        msg = self.kc.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        self.kc.shell_channel.send(msg)

    def widget_reply(self, comm_id: str, command_id: str) -> dict[str, Any]:
        msg = self.wait(
            lambda m: (
                m["header"]["msg_type"] == "comm_msg"
                and m["content"]["comm_id"] == comm_id
                and m["content"]["data"].get("method") == "custom"
                and m["content"]["data"]["content"].get("command_id") == command_id
            )
        )
        return msg["content"]["data"]["content"]

    def resolved_state(self, comm_id: str) -> dict[str, Any]:
        msg = self.wait(
            lambda m: (
                m["header"]["msg_type"] == "comm_msg"
                and m["content"]["comm_id"] == comm_id
                and m["content"]["data"].get("method") == "update"
                and m["content"]["data"]["state"].get("resolved")
            )
        )
        return msg["content"]["data"]["state"]["resolved"]


def answer(request_id: str, decision: str, client_id: str, command_id: str) -> dict[str, Any]:
    return {
        "type": "permission_response",
        "id": command_id,
        "request_id": request_id,
        "decision": decision,
        "client_id": client_id,
    }


def test_a_click_on_the_hosted_dialog_resumes_the_cell(
    start_kernel: StartKernel, workspace: Path
) -> None:
    _, kc = start_kernel(WRITE)
    front = WidgetFrontEnd(kc)
    assert front.announce()["comms"] == {}
    msg_id = kc.execute("write out.txt")

    opened = front.dialog_opened()
    comm_id = opened["content"]["comm_id"]
    request = opened["content"]["data"]["state"]["request"]
    assert opened["parent_header"]["msg_id"] == msg_id
    assert request["tool"] == "write"
    assert request["input"] == {"path": "out.txt", "content": "hi\n"}
    assert opened["content"]["data"]["state"]["resolved"] is None
    shown = front.dialog_shown(comm_id)
    assert shown["parent_header"]["msg_id"] == msg_id
    assert shown["content"]["data"][WIDGET_VIEW]["version_major"] == 2
    # the dialog replaces the prompt's own output, which keeps its data as the fallback
    prompts = [
        m
        for m in front.iopub
        if m["header"]["msg_type"] == "display_data" and PERMISSION in m["content"]["data"]
    ]
    assert len(prompts) == 1
    display_id = prompts[0]["content"]["transient"]["display_id"]
    assert shown["content"]["transient"]["display_id"] == display_id
    assert shown["content"]["data"][PERMISSION]["request_id"] == request["request_id"]
    assert "Permission needed" in shown["content"]["data"]["text/plain"]
    assert not (workspace / "out.txt").exists()

    front.click(comm_id, answer(request["request_id"], "allow", "widget-page-1", "w1"))
    assert front.widget_reply(comm_id, "w1")["ok"] is True
    assert front.shell_reply(msg_id)["content"]["status"] == "ok"
    assert (workspace / "out.txt").read_text() == "hi\n"
    resolved = front.resolved_state(comm_id)
    assert resolved["decided_by"] == "widget-page-1"
    assert resolved["decision"] == "allow"
    assert resolved["source"] == "client"
    # widget restore on page reload: the dialog is listed by comm_info_request
    listed = front.announce()["comms"]
    assert listed[comm_id] == {"target_name": "jupyter.widget"}
    assert len(listed) == 2  # the dialog and its Layout


def test_the_kernel_offers_no_subshells_and_says_so_when_asked(
    start_kernel: StartKernel,
) -> None:
    """Widget clicks are served on the main shell while a cell runs (above), so the agent
    kernel runs without ipykernel's shell-channel thread and must not leave a client waiting."""
    _, kc = start_kernel(WRITE)
    msg_id = kc.kernel_info()
    info = kc.get_shell_msg(timeout=30)
    while info["parent_header"]["msg_id"] != msg_id:  # the fixture's ready handshake
        info = kc.get_shell_msg(timeout=30)
    info = info["content"]
    assert "kernel subshells" not in info["supported_features"]
    for request, reply_type in [
        ("create_subshell_request", "create_subshell_reply"),
        ("delete_subshell_request", "delete_subshell_reply"),
    ]:
        msg = kc.session.msg(request, {"subshell_id": "x"} if request.startswith("delete") else {})
        kc.control_channel.send(msg)
        reply = kc.get_control_msg(timeout=30)
        assert reply["parent_header"]["msg_id"] == msg["header"]["msg_id"]
        assert reply["header"]["msg_type"] == reply_type
        assert reply["content"]["status"] == "error"
        assert reply["content"]["ename"] == "SubshellsUnsupported"
        assert "main shell channel" in reply["content"]["evalue"]
    msg = kc.session.msg("list_subshell_request", {})
    kc.control_channel.send(msg)
    listed = kc.get_control_msg(timeout=30)
    assert listed["content"] == {"status": "ok", "subshell_id": []}
    assert kc.execute_interactive("", timeout=30)["content"]["status"] == "ok"


def test_another_client_answers_first_and_the_dialog_says_who(
    start_kernel: StartKernel, workspace: Path
) -> None:
    km, kc = start_kernel(WRITE)
    kc_b = another_client(km)
    try:
        front = WidgetFrontEnd(kc)
        front.announce()
        b = AgentClient(kc_b, "client-b")
        b.attach()
        msg_id = kc.execute("write out.txt")
        opened = front.dialog_opened()
        comm_id = opened["content"]["comm_id"]
        request_id = opened["content"]["data"]["state"]["request"]["request_id"]

        reply = b.command(answer(request_id, "deny", "client-b", "b1"))
        assert reply["ok"] is True
        resolved = front.resolved_state(comm_id)
        assert resolved["decided_by"] == "client-b"
        assert resolved["decision"] == "deny"

        front.click(comm_id, answer(request_id, "allow", "widget-page-1", "w1"))
        late = front.widget_reply(comm_id, "w1")
        assert late["ok"] is False
        assert "already decided by client-b" in late["message"]
        assert front.shell_reply(msg_id)["content"]["status"] == "ok"
        assert not (workspace / "out.txt").exists()
    finally:
        kc_b.stop_channels()


def test_without_a_widget_front_end_the_headless_policy_decides(
    start_kernel: StartKernel, workspace: Path
) -> None:
    """nbclient never asks for widget comm info: the dialog is shown, but nobody is waited for."""
    _, kc = start_kernel(WRITE)
    front = WidgetFrontEnd(kc)
    started = time.monotonic()
    msg_id = kc.execute("write out.txt")
    comm_id = front.dialog_opened()["content"]["comm_id"]
    resolved = front.resolved_state(comm_id)
    assert front.shell_reply(msg_id)["content"]["status"] == "ok"
    assert time.monotonic() - started < 20  # not the 60 s permission timeout
    assert resolved["source"] == "headless"
    assert resolved["decision"] == "deny"
    assert not (workspace / "out.txt").exists()


def test_an_interrupt_resolves_the_dialog(start_kernel: StartKernel, workspace: Path) -> None:
    km, kc = start_kernel(WRITE)
    front = WidgetFrontEnd(kc)
    front.announce()
    msg_id = kc.execute("write out.txt")
    comm_id = front.dialog_opened()["content"]["comm_id"]
    km.interrupt_kernel()
    resolved = front.resolved_state(comm_id)
    assert resolved["source"] == "abort"
    assert resolved["decided_by"] == "abort"
    assert resolved["decision"] == "deny"
    front.shell_reply(msg_id)  # the cell ends (its status is the kernel's interrupt handling)
    assert not (workspace / "out.txt").exists()
