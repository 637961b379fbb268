"""`%shard attach`, `%%shard --agent`, `%shard dashboard` and `%shard connect` against a real
gateway with real `shard` agent kernels playing scripts (no model is called)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell

from shard_core.protocol import AbortCommand
from shard_kernel.inprocess import InProcessAgent
from shard_kernel.remote import RemoteAgent
from shard_widgets import AgentWidget
from tests.integration.gateway.conftest import TOKEN, Server, Servers, free_port, write_script
from tests.integration.magics.conftest import (
    create_agent,
    magics,
    rest,
    texts,
    wait_until,
)
from tests.unit.widgets._support import comm_of

pytestmark = pytest.mark.integration

HELLO = [{"text": "Hello from the gateway agent."}, {"text": "Second answer."}]
WRITE = [
    {"tool_calls": [{"name": "write", "input": {"path": "out.txt", "content": "hi\n"}}]},
    {"text": "Wrote it."},
]


def remote(shell: InteractiveShell, name: str) -> RemoteAgent:
    agent = magics(shell).agents[name]
    assert isinstance(agent, RemoteAgent)
    return agent


def test_attach_then_a_waiting_cell_shows_the_reply(
    shell: InteractiveShell, gateway: Server, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    info = create_agent(gateway, workspace, "helper", HELLO)
    shell.run_line_magic("shard", "attach helper")
    agent = remote(shell, "helper")
    assert (magics(shell).current, agent.info.id, agent.connected) == ("helper", info["id"], True)
    attach_widget = agent.widgets[0]

    shell.run_cell_magic("shard", "--agent helper --wait", "say hello")
    cell_widget = agent.widgets[-1]
    assert cell_widget is not attach_widget
    # the attach cell's saved output does not take the %%shard cell's turn again
    assert (attach_widget.snapshot_kept, cell_widget.snapshot_kept) == (True, False)
    for widget in (attach_widget, cell_widget):
        assert "Hello from the gateway agent." in texts(widget.events)
        assert [e["type"] for e in widget.events][-1] == "turn_end"
    assert cell_widget.usage["total"]["output_tokens"] > 0

    shell.run_cell_magic("shard", "--wait", "again")  # the attached agent is the default
    assert "Second answer." in texts(agent.widgets[-1].events)

    shell.run_line_magic("shard", "list")
    shell.run_line_magic("shard", "mode plan")
    shell.run_line_magic("shard", "status")
    out = capsys.readouterr().out
    assert f"attached to helper ({info['id']}) on {gateway.url}" in out
    assert "* helper  idle" in out
    assert f"(remote {info['id']} on {gateway.url})" in out
    assert "helper: plan mode" in out
    assert "helper: idle, plan mode, " in out
    assert "(remote " in out
    assert "%shard: error" not in out
    assert TOKEN not in out
    assert rest(gateway, "GET", f"/shard/api/agents/{info['id']}")["mode"] == "plan"

    # a new attach of the same agent opens a widget with its history
    shell.run_line_magic("shard", "attach helper")
    history = agent.widgets[-1]
    assert "Hello from the gateway agent." in texts(history.events)
    assert "Second answer." in texts(history.events)


def test_a_killed_agent_shows_stopped_and_the_next_prompt_restarts_it(
    shell: InteractiveShell, gateway: Server, workspace: Path
) -> None:
    info = create_agent(gateway, workspace, "phoenix", HELLO)
    shell.run_line_magic("shard", "attach phoenix")
    agent = remote(shell, "phoenix")
    shell.run_cell_magic("shard", "--agent phoenix --wait", "say hello")
    widget = agent.widgets[0]
    old_kernel = agent.info.kernel_id

    rest(gateway, "DELETE", f"/shard/api/agents/{info['id']}")
    wait_until(lambda: widget.status == "stopped", what="the attached widget says stopped")
    assert (agent.connected, agent.state["status"], widget.pending) == (False, "stopped", [])
    reply = agent.command(AbortCommand())  # refused at once, saying why (no 10 s timeout)
    assert not reply.ok
    assert "stopped" in reply.message or "not connected" in reply.message

    shell.run_cell_magic("shard", "--agent phoenix --wait", "again")  # restarts, resumes
    assert agent.connected
    assert agent.info.kernel_id not in (None, old_kernel)
    assert "Second answer." in texts(agent.widgets[-1].events)
    # the widget attached before the kill follows the new kernel (its status event comes just
    # after the turn_end a --wait returns on)
    wait_until(lambda: widget.status == "idle", within=15, what="the old widget follows")


def test_a_permission_answered_through_the_widget_lands(
    shell: InteractiveShell, gateway: Server, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    create_agent(gateway, workspace, "writer", WRITE)
    shell.run_cell_magic("shard", "--agent writer", "write out.txt")  # attaches; returns at once
    agent = remote(shell, "writer")
    widget = agent.widgets[-1]
    wait_until(lambda: widget.pending, what="the permission request in the widget")
    request = widget.pending[0]
    assert (request["tool"], request["input"]["path"]) == ("write", "out.txt")
    assert not (workspace / "out.txt").exists()

    answer = {
        "type": "permission_response",
        "id": "c1",
        "request_id": request["request_id"],
        "decision": "allow",
        "client_id": "browser-1",
    }
    widget._handle_custom_msg(answer, [])  # what a click on Allow sends
    wait_until(lambda: any(e["type"] == "turn_end" for e in widget.events), what="turn_end")
    assert (workspace / "out.txt").read_text() == "hi\n"
    resolved = [e for e in widget.events if e["type"] == "permission_resolved"]
    assert [(e["decision"], e["decided_by"], e["source"]) for e in resolved] == [
        ("allow", "browser-1", "client")
    ]
    assert widget.pending == []
    assert "Wrote it." in texts(widget.events)

    widget._handle_custom_msg({**answer, "id": "c2", "decision": "deny"}, [])  # too late
    replies = [m for m in comm_of(widget).custom() if m.get("type") == "reply"]
    assert [(r["command_id"], r["ok"]) for r in replies] == [("c1", True), ("c2", False)]
    assert "already decided by browser-1" in replies[1]["message"]
    assert "%shard: error" not in capsys.readouterr().out


def test_dashboard_lists_refreshes_attaches_and_kills(
    shell: InteractiveShell, gateway: Server, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    alpha = create_agent(gateway, workspace, "alpha", HELLO)
    beta = create_agent(gateway, workspace, "beta", HELLO)
    shell.run_line_magic("shard", "dashboard")
    host = magics(shell).remote.dashboards[-1]
    assert [(a["name"], a["runtime_state"]) for a in host.widget.agents] == [
        ("alpha", "running"),
        ("beta", "running"),
    ]

    create_agent(gateway, workspace, "gamma", HELLO)  # made elsewhere: an event brings it
    wait_until(lambda: len(host.widget.agents) == 3, 15, "the dashboard refresh")
    assert host.source == "events"  # pushed by the gateway, not polled

    host.widget._handle_custom_msg({"type": "attach", "agent_id": alpha["id"], "id": "d1"}, [])
    assert len(host.view.children) == 2
    attached = host.view.children[1]
    assert isinstance(attached, AgentWidget)
    assert magics(shell).current == "alpha"
    assert remote(shell, "alpha").connected

    host.widget._handle_custom_msg({"type": "kill", "agent_id": beta["id"], "id": "d2"}, [])
    states = {a["name"]: a["runtime_state"] for a in host.widget.agents}
    assert states == {"alpha": "running", "beta": "stopped", "gamma": "running"}

    # killing the attached agent detaches it; the next cell resumes it
    host.widget._handle_custom_msg({"type": "kill", "agent_id": alpha["id"], "id": "d3"}, [])
    assert not remote(shell, "alpha").connected
    shell.run_cell_magic("shard", "--wait", "are you back?")
    assert "Hello from the gateway agent." in texts(remote(shell, "alpha").widgets[-1].events)
    assert rest(gateway, "GET", f"/shard/api/agents/{alpha['id']}")["runtime_state"] == "running"

    replies = [m for m in comm_of(host.widget).custom() if m.get("type") == "reply"]
    assert [(r["command_id"], r["ok"]) for r in replies] == [
        ("d1", True),
        ("d2", True),
        ("d3", True),
    ]
    assert [r["message"] for r in replies] == [
        "attached to alpha",
        "beta stopped",
        "alpha stopped",
    ]

    host.widget.close()  # closed: the poll stops
    wait_until(lambda: not host.polling, 10, "the poll to stop")
    assert "%shard: error" not in capsys.readouterr().out


def test_the_dashboard_polls_when_the_event_subscription_fails(
    shell: InteractiveShell,
    gateway: Server,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # a server without the events route (an older Shard, a proxy refusing WebSockets): 404
    monkeypatch.setattr("shard_kernel.remote.events.EVENTS_PATH", "shard/api/no-such-events")
    create_agent(gateway, workspace, "alpha", HELLO)
    shell.run_line_magic("shard", "dashboard")
    host = magics(shell).remote.dashboards[-1]
    create_agent(gateway, workspace, "beta", HELLO)  # made elsewhere: the poll picks it up
    wait_until(lambda: len(host.widget.agents) == 2, 15, "the dashboard's poll")
    assert host.source == "polling"
    host.widget.close()
    wait_until(lambda: not host.polling, 10, "the poll to stop")
    assert "%shard: error" not in capsys.readouterr().out


def test_unknown_and_ambiguous_agents_and_bad_arguments(
    shell: InteractiveShell, gateway: Server, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    create_agent(gateway, workspace, "alpha", HELLO)
    create_agent(gateway, workspace, "alpine", HELLO)
    shell.run_line_magic("shard", "attach nobody")
    shell.run_line_magic("shard", "attach al")
    shell.run_cell_magic("shard", "--agent nobody", "hello?")
    out = capsys.readouterr()
    assert out.out.count(f"%shard: error: no agent 'nobody' on the gateway at {gateway.url}") == 2
    assert "%shard: error: 'al' is ambiguous: it could be alpha (agent-" in out.out
    assert "usage:" not in out.out  # not an argument mistake
    assert magics(shell).agents == {}

    for line in ["attach", "attach a b", "dashboard now", "connect a b", "connect --token"]:
        shell.run_line_magic("shard", line)
    shell.run_cell_magic("shard", "--agent alpha --timeout soon", "hello")
    shell.run_cell_magic("shard", "--agent alpha --timeout 0", "hello")
    shell.run_cell_magic("shard", "--agent alpha", "   ")
    out = capsys.readouterr()
    assert out.out.count("%shard: error:") == 8
    assert out.out.count("usage:") == 8
    assert "attach takes one agent name or id" in out.out
    assert "'soon' is not a number of seconds" in out.out
    assert "the timeout must be more than 0 seconds" in out.out
    assert "Traceback" not in out.out + out.err
    assert TOKEN not in out.out + out.err
    assert magics(shell).agents == {}


def test_no_gateway_unreachable_gateway_and_a_wrong_token(
    shell: InteractiveShell, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shell.run_line_magic("shard", "attach helper")  # nothing configured, nothing running
    shell.run_line_magic("shard", "dashboard")
    port = free_port()
    shell.run_line_magic("shard", f"connect http://127.0.0.1:{port}")
    out = capsys.readouterr()
    none = "%shard: error: no Shard gateway found: start one with `shard gateway`"
    assert out.out.count(none) == 2
    assert "%shard connect URL --token TOKEN" in out.out
    assert "SHARD_GATEWAY_URL" in out.out
    assert f"cannot reach the gateway at http://127.0.0.1:{port}/" in out.out
    assert "Traceback" not in out.out + out.err

    servers = Servers(tmp_path / "gw")
    try:
        server = servers.start()
        shell.run_line_magic("shard", f"connect {server.url} --token wrong-token-0123")
        shell.run_line_magic("shard", f"connect {server.url}lab?token={TOKEN}")
        out = capsys.readouterr()
        assert f"the gateway at {server.url} refused the request (HTTP 403)" in out.out
        assert "check the token" in out.out
        assert f"connected to the Shard gateway at {server.url}: 0 agents" in out.out
        assert TOKEN not in out.out + out.err
        assert "wrong-token-0123" not in out.out + out.err
    finally:
        assert servers.stop_all() == []


def test_a_running_gateway_is_found_through_jupyter_runtime_files(
    shell: InteractiveShell,
    tmp_path: Path,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    servers = Servers(tmp_path / "gw")
    try:
        server = servers.start()
        monkeypatch.setenv("JUPYTER_RUNTIME_DIR", server.env["JUPYTER_RUNTIME_DIR"])
        wait_until(
            lambda: list(Path(server.env["JUPYTER_RUNTIME_DIR"]).glob("jpserver-*.json")),
            what="the server's runtime file",
        )
        create_agent(server, workspace, "found", HELLO)
        shell.run_line_magic("shard", "connect")
        shell.run_cell_magic("shard", "--agent found --wait", "hello")
        out = capsys.readouterr().out
        assert f"connected to the Shard gateway at {server.url} (found running): 1 agent" in out
        assert "Hello from the gateway agent." in texts(remote(shell, "found").widgets[-1].events)
        assert TOKEN not in out
    finally:
        shell.run_line_magic("unload_ext", "shard_kernel")  # detach before the server goes
        shell.run_line_magic("load_ext", "shard_kernel")
        assert servers.stop_all() == []


def test_a_waiting_cell_leaves_asks_to_the_headless_policy(
    shell: InteractiveShell, gateway: Server, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--wait` blocks the notebook, as in an nbclient run: nobody here can click, so the
    notebook attaches as an observer for the turn and the agent's headless policy answers at
    once instead of after its permission timeout (60 s)."""
    info = create_agent(gateway, workspace, "batch", WRITE)
    shell.run_line_magic("shard", "attach batch")
    agent = remote(shell, "batch")
    assert agent.role == "interactive"

    started = time.monotonic()
    shell.run_cell_magic("shard", "--agent batch --wait", "write out.txt")
    assert time.monotonic() - started < 30
    widget = agent.widgets[-1]
    resolved = [e for e in widget.events if e["type"] == "permission_resolved"]
    assert [(e["source"], e["decision"]) for e in resolved] == [("headless", "deny")]
    assert not (workspace / "out.txt").exists()
    assert "%shard: error" not in capsys.readouterr().out

    # after the turn the notebook answers again: the registry counts it as interactive
    wait_until(lambda: agent.role == "interactive", what="the notebook's role back")
    wait_until(
        lambda: (
            rest(gateway, "GET", f"/shard/api/agents/{info['id']}")["clients_by_role"][
                "interactive"
            ]
            == 1
        ),
        what="one interactive client in the registry",
    )
    agent.close()  # the notebook detaches: the kernel confirms it before close returns
    wait_until(
        lambda: rest(gateway, "GET", f"/shard/api/agents/{info['id']}")["clients"] == 0,
        what="no client left once the notebook detached",
    )


def test_new_makes_a_gateway_agent_on_the_notebooks_server_and_local_stays_here(
    shell: InteractiveShell,
    tmp_path: Path,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A Python notebook inside `jupyter lab` with Shard: `%shard new` finds its server the way
    `%shard connect` does (Jupyter's runtime files) and makes the agent there."""
    servers = Servers(tmp_path / "gw")
    try:
        server = servers.start()
        monkeypatch.setenv("JUPYTER_RUNTIME_DIR", server.env["JUPYTER_RUNTIME_DIR"])
        wait_until(
            lambda: list(Path(server.env["JUPYTER_RUNTIME_DIR"]).glob("jpserver-*.json")),
            what="the server's runtime file",
        )
        model = write_script(workspace.parent, HELLO, name="script-new.json")
        shell.run_line_magic(
            "shard", f"new --name helper --cwd {workspace} --model {model} --allow Read(**)"
        )
        [info] = rest(server, "GET", "/shard/api/agents")["agents"]
        assert (info["name"], info["cwd"], info["model"], info["mode"], info["runtime_state"]) == (
            "helper",
            str(workspace.resolve()),
            model,
            "build",
            "running",
        )
        agent = remote(shell, "helper")
        assert (magics(shell).current, agent.info.id, agent.connected) == (
            "helper",
            info["id"],
            True,
        )
        assert len(agent.widgets) == 1  # shown live, like %shard attach
        shell.run_cell_magic("shard", "--wait", "hello")  # the new agent is the default
        assert "Hello from the gateway agent." in texts(agent.widgets[-1].events)

        shell.run_line_magic("shard", f"new --local --name here --cwd {workspace} --model {model}")
        assert isinstance(magics(shell).agents["here"], InProcessAgent)
        assert magics(shell).current == "here"
        assert len(rest(server, "GET", "/shard/api/agents")["agents"]) == 1
        out = capsys.readouterr().out
        shown = model.removeprefix("scripted/")  # the model as the agent reports it
        assert f"agent helper: {shown}, build mode, in {workspace.resolve()} (gateway agent " in out
        assert f"{info['id']} on {server.url})" in out
        assert "agent here: " in out
        assert "%shard: error" not in out
        assert "no Shard gateway found" not in out
        assert TOKEN not in out
    finally:
        shell.run_line_magic("unload_ext", "shard_kernel")  # detach before the server goes
        shell.run_line_magic("load_ext", "shard_kernel")
        assert servers.stop_all() == []


def test_new_with_no_gateway_runs_here_and_says_so(
    shell: InteractiveShell, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shell.run_line_magic("shard", f"new --name solo --cwd {workspace} --model scripted/demo")
    assert isinstance(magics(shell).agents["solo"], InProcessAgent)
    out = capsys.readouterr().out
    assert out.splitlines()[0] == (
        "%shard: no Shard gateway found, so solo runs in this kernel "
        "(%shard connect URL --token T to use one; --local skips the search)"
    )
    assert "agent solo: demo (scripted demo" in out
