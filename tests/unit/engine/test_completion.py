"""Inline completion's request and answer: the prompt carries the code around the cursor and the
cells above (nearest kept), no tools; the answer is cleaned of fences and a repeated line."""

from __future__ import annotations

import pytest

from shard_core.engine.completion import (
    MAX_CONTEXT_CHARS,
    CompletionAsk,
    clean_completion,
    complete,
    completion_prompt,
    completion_request,
)
from shard_core.types import ProviderRequest, TextBlock
from tests.fixtures.function_provider import FunctionProvider

ASK = CompletionAsk(
    prefix="def mean(xs):\n    return ",
    suffix="\n\nprint(mean([1, 2]))",
    language="python",
    path="stats.ipynb",
    cells_above=("import math",),
)


def test_the_request_holds_the_code_around_the_cursor_and_no_tools() -> None:
    request = completion_request("gpt-test", ASK, max_tokens=64)
    assert request.tools == []
    assert request.max_tokens == 64
    assert [s.name for s in request.system] == ["completion"]
    [message] = request.messages
    assert message.content == [TextBlock(text=completion_prompt(ASK))]
    assert completion_prompt(ASK) == (
        "Language: python in stats.ipynb\n\n"
        "Cells above:\n<cell>\nimport math\n</cell>\n\n"
        "Code before the cursor:\ndef mean(xs):\n    return <cursor/>\n\nprint(mean([1, 2]))"
    )


def test_the_cells_nearest_the_cursor_are_kept_when_they_do_not_all_fit() -> None:
    far, near = "a" * MAX_CONTEXT_CHARS, "b = 2"
    prompt = completion_prompt(CompletionAsk(prefix="x", cells_above=(far, near)))
    assert "<cell>\nb = 2\n</cell>" in prompt
    assert far not in prompt


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("sum(xs) / len(xs)", "sum(xs) / len(xs)"),
        ("```python\nsum(xs) / len(xs)\n```", "sum(xs) / len(xs)"),
        ("    return sum(xs) / len(xs)\n", "sum(xs) / len(xs)"),
        ("   \n", ""),
        ("\n\nprint(mean", ""),  # only the code already after the cursor
    ],
)
def test_an_answer_is_cleaned_to_the_text_to_insert(answer: str, expected: str) -> None:
    assert clean_completion(answer, ASK) == expected


async def test_complete_asks_the_provider_once_and_returns_the_insert() -> None:
    provider = FunctionProvider(lambda request, n: "```\nsum(xs) / len(xs)\n```")
    assert await complete(provider, ASK) == "sum(xs) / len(xs)"
    [request] = provider.requests
    assert isinstance(request, ProviderRequest)
    assert request.model == "function-model"
