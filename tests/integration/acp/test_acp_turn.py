"""A turn through `shard acp`: streamed text and tool calls, the permission request with the
edit's diff and the four options, allow_always saving the grant the next call uses."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp.schema import FileEditToolCallContent, TextContentBlock

from shard_kernel.acp.session import ContentBlock
from tests.integration.acp.conftest import AcpHost, acp_agent, write_script


def _prompt(text: str) -> list[ContentBlock]:
    return [TextContentBlock(type="text", text=text)]


async def test_a_turn_streams_text_tool_calls_and_asks_with_the_diff(
    project: Path, acp_env: dict[str, str], tmp_path: Path, agent_python: str
) -> None:
    host = AcpHost(answer="allow_once")
    args = ("--model", "scripted/demo")
    async with acp_agent(host, acp_env, *args, stderr=tmp_path / "stderr", python=agent_python) as (
        conn,
        _process,
        init,
    ):
        assert init.protocol_version == 1
        assert init.agent_capabilities is not None
        assert init.agent_capabilities.load_session is True
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=new.session_id, prompt=_prompt("fix the bug"))
    assert response.stop_reason == "end_turn"
    kinds = host.kinds()
    assert "agent_message_chunk" in kinds
    assert "agent_thought_chunk" in kinds
    starts = host.of("tool_call")
    assert [s.kind for s in starts] == ["read", "edit", "execute"]
    assert starts[1].title == "edit: calc.py"
    assert starts[1].locations[0].path == str(project / "calc.py")
    assert starts[2].raw_input["command"] == "python -m pytest -q"
    finals = [u for u in host.of("tool_call_update") if u.status in ("completed", "failed")]
    assert [u.status for u in finals] == ["completed", "completed", "completed"]
    bash_text = finals[2].content[-1].content.text
    assert bash_text.startswith("$ python -m pytest -q")
    assert "passed" in bash_text
    diffs = [c for c in finals[1].content if isinstance(c, FileEditToolCallContent)]
    assert diffs
    assert "a + b" in diffs[0].new_text
    assert "a - b" in (diffs[0].old_text or "")
    # the edit was asked about with its diff and the four options; bash was asked too
    edit_ask = next(a for a in host.asks if a.tool_call.kind == "edit")
    kinds_offered = [o.kind for o in edit_ask.options]
    assert kinds_offered == ["allow_once", "allow_always", "reject_once", "reject_always"]
    assert edit_ask.options[1].name.startswith("Always allow ")
    asked_diff = [
        c for c in edit_ask.tool_call.content or [] if isinstance(c, FileEditToolCallContent)
    ]
    assert asked_diff
    assert asked_diff[0].path == str(project / "calc.py")
    assert "a + b" in asked_diff[0].new_text
    assert "a + b" in (project / "calc.py").read_text()


async def test_reads_and_edits_go_through_the_host_when_it_offers_fs(
    project: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    calc = project / "calc.py"
    on_disk = calc.read_text()
    buffer = on_disk.replace('"""A tiny', '"""UNSAVED BUFFER: a tiny')
    host = AcpHost(answer="allow_once", files={str(calc): buffer})
    async with acp_agent(
        host, acp_env, "--model", "scripted/demo", stderr=tmp_path / "stderr", fs=True
    ) as (conn, _process, _init):
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=_prompt("fix the bug"))
    assert str(calc) in host.fs_reads
    read = next(u for u in host.of("tool_call_update") if u.status == "completed")
    assert "UNSAVED BUFFER" in read.content[-1].content.text  # the read saw the buffer
    assert "a + b" in host.files[str(calc)]  # the edit landed in the buffer
    assert "UNSAVED BUFFER" in host.files[str(calc)]
    assert calc.read_text() == on_disk  # the disk was left to the editor


@pytest.mark.parametrize("stop", ["refusal", "max_tokens"])
async def test_a_declined_or_cut_reply_is_its_acp_stop_reason(
    project: Path, acp_env: dict[str, str], tmp_path: Path, stop: str
) -> None:
    model = write_script(tmp_path, [{"text": "I will not do that.", "stop_reason": stop}])
    host = AcpHost()
    async with acp_agent(host, acp_env, "--model", model, stderr=tmp_path / "stderr") as (
        conn, _p, _i,
    ):  # fmt: skip
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=new.session_id, prompt=_prompt("delete it all"))
    assert response.stop_reason == stop
    assert "I will not do that." in host.text()
