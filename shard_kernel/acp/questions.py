"""`ask_user` under `shard acp`: a form elicitation when the host declares one
(`clientCapabilities.elicitation.form`, unstable in ACP): the choices as an enum (an array of
them for `multi`) and a free `other` field when `allow_other`. Else a
`session/request_permission` whose options are the choices (every ACP host answers that), one
option each: a `multi` question takes one choice there and own words are not offered (its
title says so). A declined or cancelled question, a host that fails, and an answer not among
the choices are no answer (logged; the tool then says no one answered, or uses the configured
default); a form answer not among the choices is asked again, the form saying why.
"""

from __future__ import annotations

import logging
from typing import Any

from acp.interfaces import Client
from acp.schema import (
    AcceptElicitationResponse,
    AllowedOutcome,
    ClientCapabilities,
    ElicitationFormSessionMode,
    ElicitationSchema,
    PermissionOption,
    ToolCallUpdate,
)

from shard_core.contracts.ui import QuestionAnswer, QuestionPrompt, question_problem

_log = logging.getLogger("shard.acp")
PREFIX = "choice-"
ASK_AGAIN = 2
"""how many times a refused form answer is asked again (with the reason) before no answer"""


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


def form_elicitation(capabilities: ClientCapabilities) -> bool:
    """Whether the host declared form elicitation."""
    elicitation = capabilities.elicitation
    return elicitation is not None and elicitation.form is not None


def question_schema(prompt: QuestionPrompt) -> ElicitationSchema:
    choices = list(prompt.choices)
    answer: dict[str, Any] = (
        {"type": "array", "title": prompt.question, "items": {"type": "string", "enum": choices},
         "minItems": 0 if prompt.allow_other else 1}
        if prompt.multi
        else {"type": "string", "title": prompt.question, "enum": choices}
    )  # fmt: skip
    properties: dict[str, Any] = {"answer": answer}
    if prompt.allow_other:
        properties["other"] = {"type": "string", "title": "Your own answer"}
    required = [] if prompt.allow_other else ["answer"]
    return ElicitationSchema.model_validate({"type": "object", "properties": properties,
                                             "required": required})  # fmt: skip


async def elicit(
    client: Client, session_id: str, host: str, prompt: QuestionPrompt
) -> QuestionAnswer | None:
    """The host's answer to a form; one that breaks the question's rules (not a choice, two
    for a one-answer question) is sent back in a new form saying why, ASK_AGAIN times at most."""
    mode = ElicitationFormSessionMode(
        session_id=session_id, requested_schema=question_schema(prompt)
    )
    message = prompt.question
    for _ in range(ASK_AGAIN + 1):
        try:
            response = await client.create_elicitation(message=message, mode=mode)
        except Exception as exc:  # the host failed or went away: no answer, said in the log
            _log.warning("acp: the question went unanswered: %s", exc)
            return None
        if not isinstance(response, AcceptElicitationResponse) or response.content is None:
            return None
        given = response.content.get("answer")
        values = (
            [given] if isinstance(given, str) else [v for v in given or [] if isinstance(v, str)]
        )
        other = response.content.get("other")
        if isinstance(other, str) and other.strip():
            values.append(other.strip())
        problem = question_problem(prompt, values)
        if problem is None:
            return QuestionAnswer(tuple(values), host)
        _log.warning("acp: the host's answer was refused: %s", problem)
        message = f"{problem}; the question is still open. {prompt.question}"
    return None


async def ask_question(
    client: Client,
    session_id: str,
    host: str,
    prompt: QuestionPrompt,
    request_id: str,
    *,
    form: bool = False,
) -> QuestionAnswer | None:
    if form:
        return await elicit(client, session_id, host, prompt)
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
