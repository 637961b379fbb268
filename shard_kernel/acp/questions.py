"""`ask_user` under `shard acp`: the question as a `session/request_permission` whose options
are the choices (every ACP host answers that), one option each; the host's pick is the answer.

ACP hosts answer one option, so a `multi` question takes one choice here and an own-words
answer (`allow_other`) is not offered; the question's title says so. A cancelled request, or
a host that fails, is no answer (the tool then says no one answered, or uses the configured
default). The SDK's elicitation is unstable and hosts rarely implement it: not used yet.
"""

from __future__ import annotations

import logging

from acp.interfaces import Client
from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate

from shard_core.contracts.ui import QuestionAnswer, QuestionPrompt

_log = logging.getLogger("shard.acp")
PREFIX = "choice-"


def question_options(prompt: QuestionPrompt) -> list[PermissionOption]:
    return [PermissionOption(option_id=f"{PREFIX}{n}", name=choice, kind="allow_once")
            for n, choice in enumerate(prompt.choices)]  # fmt: skip


def question_title(prompt: QuestionPrompt) -> str:
    notes = []
    if prompt.multi:
        notes.append("one choice here")
    if prompt.allow_other:
        notes.append("own words not offered here")
    return f"{prompt.question} ({'; '.join(notes)})" if notes else prompt.question


async def ask_question(
    client: Client, session_id: str, host: str, prompt: QuestionPrompt, request_id: str
) -> QuestionAnswer | None:
    call = ToolCallUpdate(
        tool_call_id=request_id,
        title=question_title(prompt),
        kind="other",
        status="pending",
        raw_input={"question": prompt.question, "choices": list(prompt.choices)},
        field_meta={"shard": {"question": True}},
    )
    try:
        response = await client.request_permission(
            session_id=session_id, tool_call=call, options=question_options(prompt)
        )
    except Exception as exc:  # the host failed or went away: no answer, said in the log
        _log.warning("acp: the question went unanswered: %s", exc)
        return None
    outcome = response.outcome
    if not isinstance(outcome, AllowedOutcome) or not outcome.option_id.startswith(PREFIX):
        return None
    index = outcome.option_id.removeprefix(PREFIX)
    if not index.isdigit() or int(index) >= len(prompt.choices):
        _log.warning("acp: the host chose an option that was not offered: %s", outcome.option_id)
        return None
    return QuestionAnswer((prompt.choices[int(index)],), host)
