"""`ask_user` with no one to answer (an SDK agent with no surface bound): the model is told
there is no one to ask, or, with `ask_user.headless: first_choice`, gets the first choice;
duplicate choices are an error result. And the answer rules every surface checks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from shard_core.capabilities.questions.capability import NO_ONE
from shard_core.contracts.ui import QuestionPrompt, question_problem
from shard_core.engine.config import AskUserConfig, ShardConfig
from shard_core.protocol.events import Event, ToolResultEvent
from shard_core.sdk import create_agent


def _ask(**extra: Any) -> dict[str, Any]:
    return {"name": "ask_user", "input": {"question": "Which?", "choices": ["a", "b"], **extra}}


async def _results(tmp_path: Path, calls: list[dict[str, Any]], config: ShardConfig) -> list[Any]:
    steps = [{"tool_calls": [call]} for call in calls] + [{"text": "ok"}]
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"name": "ask", "steps": steps}), encoding="utf-8")
    (tmp_path / "ws").mkdir()
    agent = await create_agent(cwd=tmp_path / "ws", model=f"scripted/{script}",
                               home=tmp_path / "home", config=config,
                               env={"HOME": str(tmp_path / "user")})  # fmt: skip
    seen: list[Event] = []
    agent.events.subscribe(seen.append)
    try:
        await agent.run("ask me")
    finally:
        await agent.close()
    return [(e.result.is_error, e.result.text) for e in seen if isinstance(e, ToolResultEvent)]


async def test_no_one_to_ask(tmp_path: Path) -> None:
    results = await _results(tmp_path, [_ask(), {**_ask(), "input": {"question": "Q",
                             "choices": ["x", "x"]}}], ShardConfig())  # fmt: skip
    assert results == [(False, NO_ONE), (True, "ask_user: each choice must be different")]


async def test_the_configured_default(tmp_path: Path) -> None:
    config = ShardConfig(ask_user=AskUserConfig(headless="first_choice"))
    assert await _results(tmp_path, [_ask()], config) == [
        (False, "No one answered; the configured default (ask_user.headless: first_choice) "
         "answers: a"),
    ]  # fmt: skip


def test_the_answer_rules() -> None:
    one = QuestionPrompt("Which?", ("a", "b"))
    assert question_problem(one, ["a"]) is None
    assert question_problem(one, ["c"]) == "'c' is not one of the choices: 'a', 'b'"
    assert question_problem(one, ["a", "b"]) == "this question takes one answer"
    assert question_problem(one, []) == "an answer needs at least one choice"
    several = QuestionPrompt("Which?", ("a", "b"), allow_other=True, multi=True)
    assert question_problem(several, ["a", "my own"]) is None
    assert question_problem(several, ["a", "a"]) == "a choice is given twice"
    assert question_problem(several, ["x", "y"]) == "at most one answer of your own words"
