"""`shard acp` sessions: allow_always saving a grant, cancel mid-bash, load in a fresh process,
modes, commands, a host's stdio MCP server."""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
from pathlib import Path

from acp.schema import ImageContentBlock, McpServerStdio

from tests.integration.acp.conftest import AcpHost, acp_agent, text_prompt, write_script

BIN = Path(sys.executable).parent
MARKER = "4217.5"  # the sleep a cancelled bash leaves behind if its group survives


def _sleepers() -> list[int]:
    found: list[int] = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv[:2] == [b"sleep", MARKER.encode()]:
            found.append(int(proc.name))
    return found


async def test_allow_always_saves_the_grant_the_next_call_uses(
    project: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    edit = {
        "name": "edit",
        "input": {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"},
    }
    again = {
        "name": "edit",
        "input": {"path": "calc.py", "old_string": "a * b", "new_string": "b * a"},
    }
    model = write_script(tmp_path, [
        {"text": "Fixing add.", "tool_calls": [edit]},
        {"text": "And multiply's order.", "tool_calls": [again]},
        {"text": "Done."},
    ])  # fmt: skip
    host = AcpHost(answer="allow_always")
    async with acp_agent(host, acp_env, "--model", model, stderr=tmp_path / "stderr") as (
        conn, _p, _i,
    ):  # fmt: skip
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=new.session_id, prompt=text_prompt("fix"))
    assert response.stop_reason == "end_turn"
    assert len(host.asks) == 1, [a.tool_call.title for a in host.asks]  # the second edit: granted
    always = next(o for o in host.asks[0].options if o.kind == "allow_always")
    rule = always.name.removeprefix("Always allow ")
    assert rule.startswith("Edit(") or rule.startswith("Write(") or rule == "Edit"
    text = (project / "calc.py").read_text()
    assert "a + b" in text
    assert "b * a" in text
    grants = list((Path(acp_env["SHARD_HOME"])).rglob("permission-grants.json"))
    assert grants, list(Path(acp_env["SHARD_HOME"]).rglob("*"))
    assert rule in grants[0].read_text()


async def test_reject_always_adds_a_named_deny_rule(
    project: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    edit = {
        "name": "edit",
        "input": {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"},
    }
    again = {
        "name": "edit",
        "input": {"path": "calc.py", "old_string": "a * b", "new_string": "b * a"},
    }
    model = write_script(tmp_path, [
        {"text": "Fixing add.", "tool_calls": [edit]},
        {"text": "Trying again.", "tool_calls": [again]},
        {"text": "Done."},
    ])  # fmt: skip
    later = write_script(tmp_path, [
        {"text": "Once more, after the reload.", "tool_calls": [edit]},
        {"text": "Still denied."},
    ], name="later")  # fmt: skip
    host = AcpHost(answer="reject_always")
    async with acp_agent(host, acp_env, "--model", model, stderr=tmp_path / "stderr") as (
        conn, _p, _i,
    ):  # fmt: skip
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=text_prompt("fix"))
    assert len(host.asks) == 1  # the deny rule decided the second call
    denied = host.asks[0].options[3].name.removeprefix("Always deny ")
    assert host.asks[0].options[3].name.startswith("Always deny ")
    finals = [u for u in host.of("tool_call_update") if u.status == "failed"]
    assert len(finals) == 2
    assert "a - b" in (project / "calc.py").read_text()
    # saved with the agent: a fresh process that loads the session still denies, unasked
    [own] = Path(acp_env["SHARD_HOME"]).rglob("agents/*/rules.json")
    assert denied in own.read_text()
    second = AcpHost(answer="allow_once")
    async with acp_agent(second, acp_env, "--model", later, stderr=tmp_path / "stderr") as (
        conn, _p, _i,
    ):  # fmt: skip
        await conn.load_session(cwd=str(project), session_id=new.session_id, mcp_servers=[])
        replayed = len(second.updates)
        await conn.prompt(session_id=new.session_id, prompt=text_prompt("again"))
    assert second.asks == []
    live = [u for _, u in second.updates[replayed:]]
    failed = [u for u in live if u.session_update == "tool_call_update" and u.status == "failed"]
    assert len(failed) == 1
    assert "a - b" in (project / "calc.py").read_text()


async def test_a_cancelled_permission_request_is_a_denial(
    project: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    host = AcpHost(answer=None)
    async with acp_agent(host, acp_env, "--model", "scripted/demo", stderr=tmp_path / "stderr") as (
        conn,
        _p,
        _i,
    ):
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=text_prompt("fix the bug"))
    assert host.asks
    assert "a - b" in (project / "calc.py").read_text()
    failed = [u for u in host.of("tool_call_update") if u.status == "failed"]
    assert failed


async def test_cancel_mid_bash_ends_the_turn_and_kills_its_process_group(
    project: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    bash = {"name": "bash", "input": {"command": f"sleep {MARKER} & sleep {MARKER}; wait"}}
    model = write_script(tmp_path, [{"text": "Waiting.", "tool_calls": [bash]}, {"text": "?"}])
    host = AcpHost()
    async with acp_agent(
        host, acp_env, "--model", model, "--allow", "Bash", stderr=tmp_path / "stderr"
    ) as (conn, _p, _i):
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        turn = asyncio.ensure_future(
            conn.prompt(session_id=new.session_id, prompt=text_prompt("wait"))
        )
        for _ in range(600):
            if len(_sleepers()) == 2:
                break
            await asyncio.sleep(0.1)
        assert len(_sleepers()) == 2
        await conn.cancel(session_id=new.session_id)
        response = await asyncio.wait_for(turn, 60)
        assert response.stop_reason == "cancelled"
        for _ in range(100):
            if not _sleepers():
                break
            await asyncio.sleep(0.1)
        assert _sleepers() == []
        # the session goes on serving after a cancel
        again = await conn.prompt(session_id=new.session_id, prompt=text_prompt("and now?"))
        assert again.stop_reason == "end_turn"


async def test_load_replays_the_session_in_a_fresh_process_then_continues(
    project: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    first = AcpHost(answer="allow_once")
    args = ("--model", "scripted/demo")
    async with acp_agent(first, acp_env, *args, stderr=tmp_path / "stderr") as (conn, _p, _i):
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=text_prompt("fix the bug"))
        listed = await conn.list_sessions(cwd=str(project))
    assert [s.session_id for s in listed.sessions] == [new.session_id]
    assert listed.sessions[0].title
    second = AcpHost(answer="allow_once")
    async with acp_agent(second, acp_env, *args, stderr=tmp_path / "stderr") as (conn, _p, _i):
        loaded = await conn.load_session(
            cwd=str(project), session_id=new.session_id, mcp_servers=[]
        )
        assert loaded is not None
        replayed = list(second.updates)
        kinds = [u.session_update for _, u in replayed]
        assert kinds[0] == "user_message_chunk"
        assert replayed[0][1].content.text == "fix the bug"
        assert second.text("agent_message_chunk") == first.text("agent_message_chunk")
        assert [u.tool_call_id for u in second.of("tool_call")] == [
            u.tool_call_id for u in first.of("tool_call")
        ]
        finals = [u.status for u in second.of("tool_call_update")]
        assert finals == ["completed", "completed", "completed"]
        response = await conn.prompt(session_id=new.session_id, prompt=text_prompt("thanks"))
        assert response.stop_reason == "end_turn"
    # the continued turn is in the same log
    log = next(Path(acp_env["SHARD_HOME"]).rglob(f"{new.session_id}.jsonl")).read_text()
    assert "thanks" in log


async def test_modes_and_commands(project: Path, acp_env: dict[str, str], tmp_path: Path) -> None:
    host = AcpHost()
    async with acp_agent(host, acp_env, "--model", "scripted/demo", stderr=tmp_path / "stderr") as (
        conn,
        _p,
        _i,
    ):
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        assert new.modes is not None
        assert new.modes.current_mode_id == "build"
        assert {m.id for m in new.modes.available_modes} >= {"build", "plan"}
        await conn.set_session_mode(session_id=new.session_id, mode_id="plan")
        assert [u.current_mode_id for u in host.of("current_mode_update")] == ["plan"]
        [commands] = host.of("available_commands_update")
        names = {c.name for c in commands.available_commands}
        assert "tasks" in names
        response = await conn.prompt(session_id=new.session_id, prompt=text_prompt("/tasks"))
        assert response.stop_reason == "end_turn"
        assert host.text()  # the command's output, as the agent's message


async def test_a_host_stdio_mcp_server_is_used_through_the_gate(
    project: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    call = {"name": "mcp__time__get_current_time", "input": {"timezone": "UTC"}}
    model = write_script(tmp_path, [{"text": "Time?", "tool_calls": [call]}, {"text": "Done."}])
    host = AcpHost(answer="allow_once")
    server = McpServerStdio(name="time", command=str(BIN / "mcp-server-time"), args=[], env=[])
    async with acp_agent(host, acp_env, "--model", model, stderr=tmp_path / "stderr") as (
        conn, _p, _i,
    ):  # fmt: skip
        new = await conn.new_session(cwd=str(project), mcp_servers=[server])
        response = await conn.prompt(session_id=new.session_id, prompt=text_prompt("time"))
    assert response.stop_reason == "end_turn"
    assert [a.tool_call.title for a in host.asks] == ["mcp__time__get_current_time"]
    [final] = [u for u in host.of("tool_call_update") if u.status in ("completed", "failed")]
    assert final.status == "completed", final
    assert "UTC" in final.content[-1].content.text


PIXEL = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9aw"
    "AAAABJRU5ErkJggg=="
)


async def test_a_prompt_during_a_turn_is_a_steer_answered_when_that_turn_ends(
    project: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    bash = {"name": "bash", "input": {"command": "sleep 3"}}
    model = write_script(tmp_path, [{"text": "Waiting.", "tool_calls": [bash]}, {"text": "Ok."}])
    host = AcpHost()
    async with acp_agent(
        host, acp_env, "--model", model, "--allow", "Bash", stderr=tmp_path / "stderr"
    ) as (conn, _p, _i):
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        turn = asyncio.ensure_future(
            conn.prompt(session_id=new.session_id, prompt=text_prompt("wait"))
        )
        for _ in range(600):
            if host.of("tool_call"):
                break
            await asyncio.sleep(0.05)
        image = ImageContentBlock(type="image", data=PIXEL, mime_type="image/png")
        also = [*text_prompt("also this"), image]  # a steer carries its images too
        steer = await conn.prompt(session_id=new.session_id, prompt=also)
        first = await turn
    assert first.stop_reason == "end_turn"
    assert steer.stop_reason == "end_turn"
    assert steer.field_meta is not None
    assert steer.field_meta["shard"]["steer"] == "admitted"
    log = next(Path(acp_env["SHARD_HOME"]).rglob(f"{new.session_id}.jsonl")).read_text()
    assert '"steerId"' in log or '"steer_id"' in log
    [steered] = [json.loads(line) for line in log.splitlines() if '"also this"' in line]
    digest = hashlib.sha256(PIXEL.encode()).hexdigest()
    assert steered["details"]["message"]["content"] == [
        {"type": "text", "text": "also this"},
        {"type": "image", "media_type": "image/png", "data": f"blob:sha256:{digest}"},
    ]


async def test_plan_mode_sends_its_plan_and_images_reach_the_log(
    project: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    plan = (
        "Here is what I will do.\n\n## Implementation Plan\n\n"
        "1. Fix add in calc.py\n2. Run the tests\n"
    )
    model = write_script(tmp_path, [{"text": plan}])
    host = AcpHost()
    pixel = PIXEL
    image = ImageContentBlock(type="image", data=pixel, mime_type="image/png")
    async with acp_agent(
        host, acp_env, "--model", model, "--mode", "plan", stderr=tmp_path / "stderr"
    ) as (conn, _p, _i):
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        assert new.modes is not None
        assert new.modes.current_mode_id == "plan"
        prompt = [*text_prompt("plan the fix"), image]
        response = await conn.prompt(session_id=new.session_id, prompt=prompt)
    assert response.stop_reason == "end_turn"
    [update] = host.of("plan")
    assert [e.content for e in update.entries] == ["Fix add in calc.py", "Run the tests"]
    assert {e.status for e in update.entries} == {"pending"}
    log = next(Path(acp_env["SHARD_HOME"]).rglob(f"{new.session_id}.jsonl"))
    digest = hashlib.sha256(pixel.encode()).hexdigest()  # kept beside the log, referenced
    assert f"blob:sha256:{digest}" in log.read_text()
    assert (log.parent / "blobs" / digest).read_text() == pixel
