"""`ask_user` over `shard acp`: the question is a session/request_permission whose options are
the choices; the host's pick is the model's answer, named by the host."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, cast

from acp import PROTOCOL_VERSION, Client, spawn_agent_process
from acp.schema import (
    AcceptElicitationResponse,
    ClientCapabilities,
    ElicitationCapabilities,
    ElicitationFormCapabilities,
)

from tests.integration.acp.conftest import AcpHost, acp_agent, text_prompt, write_script

ASK = {"question": "Which database?", "choices": ["sqlite", "postgres"], "multi": True}


async def test_the_host_answers_a_question(
    project: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    steps = [
        {"tool_calls": [{"name": "ask_user", "input": ASK}]},
        {"text": "ok", "expect": {"last_tool_result_contains": "answered: postgres"}},
    ]
    host = AcpHost(answer="choice-1")
    script = write_script(tmp_path, steps)
    async with acp_agent(host, acp_env, "--model", script, stderr=tmp_path / "stderr") as (
        conn,
        _p,
        _i,
    ):
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=new.session_id, prompt=text_prompt("ask"))
    assert response.stop_reason == "end_turn"
    (ask,) = host.asks
    assert ask.tool_call.title == "Which database? (one choice here)"
    assert [(o.option_id, o.name) for o in ask.options] == [
        ("choice-0", "sqlite"),
        ("choice-1", "postgres"),
    ]
    said = " ".join(str(u) for u in host.updates)
    assert "answered: postgres" in said
    assert "[scripted demo] expected" not in said


class FormHost(AcpHost):
    """A host that declares form elicitation and fills each form it is sent."""

    forms: list[tuple[str, dict[str, Any]]]
    contents: list[dict[str, Any]]

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> Any:
        schema = mode.requested_schema.model_dump(mode="json", by_alias=True, exclude_none=True)
        self.forms.append((message, schema))
        return AcceptElicitationResponse(action="accept", content=self.contents.pop(0))


async def test_a_host_with_form_elicitation_gets_a_form(
    project: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    ask = {**ASK, "allow_other": True}
    steps = [
        {"tool_calls": [{"name": "ask_user", "input": ask}]},
        {"tool_calls": [{"name": "ask_user", "input": ask}]},
        {"text": "ok"},
    ]
    host = FormHost()
    # the second gives two answers of its own (mysql is no choice): refused, asked again with
    # the reason; the host's next answer is the one
    host.forms, host.contents = (
        [],
        [{"answer": ["postgres"], "other": "duckdb"}, {"answer": ["mysql"], "other": "duckdb"},
         {"answer": ["sqlite"]}],
    )  # fmt: skip
    script = write_script(tmp_path, steps)
    caps = ClientCapabilities(
        elicitation=ElicitationCapabilities(form=ElicitationFormCapabilities())
    )
    with (tmp_path / "stderr").open("ab") as err:
        async with spawn_agent_process(
            cast(Client, host), sys.executable, "-m", "shard_kernel.cli", "acp", "--model", script,
            env=acp_env, transport_kwargs={"stderr": err.fileno(), "shutdown_timeout": 30.0},
            use_unstable_protocol=True,  # elicitation is unstable in ACP
        ) as (conn, _process):  # fmt: skip
            await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=caps)
            new = await conn.new_session(cwd=str(project), mcp_servers=[])
            await conn.prompt(session_id=new.session_id, prompt=text_prompt("ask twice"))
    assert host.asks == []  # no permission request: the form asked
    assert [m for m, _ in host.forms] == [
        "Which database?", "Which database?",
        "at most one answer of your own words; the question is still open. Which database?",
    ]  # fmt: skip
    message, schema = host.forms[0]
    assert message == "Which database?"
    assert schema["properties"]["answer"]["items"]["enum"] == ["sqlite", "postgres"]
    assert schema["properties"]["other"]["type"] == "string"
    said = " ".join(str(u) for u in host.updates)
    assert "answered: postgres; duckdb" in said
    assert "answered: sqlite" in said
    assert "No one is there to answer" not in said
