"""The questions capability: `ask_user`.

    await host.install("shard.questions", QuestionsCapability())

The question goes to `api.ui`: on a kernel it is a `ui_request` (ui `question`) every client
shows, pending like a permission prompt (replayed to a client that attaches while it is open;
the first valid answer wins; `ui_resolved` says who answered). An answer that is not one of
the choices is refused to whoever sent it, and the question stays open. With no one to answer
(headless, or no answer in time) config `ask_user.headless` decides: `no_one` tells the model
so, `first_choice` answers with the first choice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from shard_core.contracts import ExtensionApi, ToolContext
from shard_core.contracts.ui import QuestionPrompt
from shard_core.engine.config import AskUserConfig
from shard_core.engine.ui import UiProxy
from shard_core.tools.guard import check_input
from shard_core.types import JsonObject, ToolResult

NAME = "ask_user"
MAX_CHOICES = 12
NO_ONE = (
    "No one is there to answer (a headless run, or no answer in time). Decide yourself and "
    "say what you assumed, or stop and say what you need."
)
SCHEMA: JsonObject = {
    "type": "object",
    "properties": {
        "question": {"type": "string", "minLength": 1, "maxLength": 2000},
        "choices": {
            "type": "array",
            "items": {"type": "string", "minLength": 1, "maxLength": 500},
            "minItems": 1,
            "maxItems": MAX_CHOICES,
        },
        "allow_other": {"type": "boolean", "description": "accept an answer in their own words"},
        "multi": {"type": "boolean", "description": "more than one choice may be picked"},
    },
    "required": ["question", "choices"],
    "additionalProperties": False,
}


class AskUserTool:
    name = NAME
    description = (
        "Ask the person a question with choices and wait for the answer (one choice, or "
        "several with `multi`; their own words too with `allow_other`). Use it when a decision "
        "is theirs to make; the answer says who answered."
    )
    input_schema = SCHEMA
    read_only = True  # it changes nothing: it waits for a person

    def __init__(self, ui: UiProxy, settings: Callable[[], JsonObject] = dict) -> None:
        self._ui = ui
        self._settings = settings

    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        problem = check_input(self.input_schema, input)
        if problem:
            return ToolResult.error(f"invalid ask_user input: {problem}")
        choices = [" ".join(c.split()) for c in cast("list[str]", input["choices"])]
        if len(set(choices)) != len(choices):
            return ToolResult.error("ask_user: each choice must be different")
        prompt = QuestionPrompt(
            question=str(input["question"]).strip(),
            choices=tuple(choices),
            allow_other=input.get("allow_other") is True,
            multi=input.get("multi") is True,
        )
        answer = await self._ui.question(prompt)
        if answer is not None:
            said = f"{answer.decided_by} answered: {'; '.join(answer.values)}"
            return ToolResult.ok(said, answer=list(answer.values), decided_by=answer.decided_by)
        if AskUserConfig.model_validate(self._settings()).headless == "first_choice":
            first = prompt.choices[0]
            return ToolResult.ok(
                f"No one answered; the configured default (ask_user.headless: first_choice) "
                f"answers: {first}",
                answer=[first],
                decided_by="default",
            )
        return ToolResult.ok(NO_ONE, answer=[], decided_by=None)


class QuestionsCapability:
    def __call__(self, api: ExtensionApi) -> None:
        ui = api.ui
        proxy = ui if isinstance(ui, UiProxy) else UiProxy()
        if proxy is not ui:
            proxy.bind(ui)
        api.register_tool(AskUserTool(proxy, lambda: api.settings("ask_user")))
