"""Inline completion: the text a model proposes at an editor's cursor, in one small request.

A surface (the Lab extension's inline completion provider, through the gateway's
`/shard/api/complete`) sends the code before and after the cursor and, for a notebook, the cells
above; the answer is the text to insert, cleaned of what models add around it (code fences, a
repeat of the line before the cursor). The request carries no tools, so nothing tool-shaped
(`tools`, `tool_choice`) reaches an OpenAI-compatible server that rejects it. It is not part of
any conversation: no session logs it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from shard_core.contracts import Provider
from shard_core.types import MessageDone, ProviderRequest, SystemSection, TextBlock, UserMessage
from shard_core.types.errors import ProviderError

MAX_PREFIX_CHARS = 6_000
MAX_SUFFIX_CHARS = 2_000
MAX_CONTEXT_CHARS = 6_000
DEFAULT_MAX_TOKENS = 256

COMPLETION_INSTRUCTIONS = (
    "You complete code in an editor. The user sends the code before and after the cursor "
    "(and, in a notebook, the cells above). Answer with the text that goes at the cursor "
    "only: no explanation, no code fences, nothing of the code already before or after it. "
    "Answer with nothing when nothing fits."
)

_FENCE = re.compile(r"^```[\w+-]*\n(.*?)\n?```\s*$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class CompletionAsk:
    """What the editor holds around the cursor."""

    prefix: str
    suffix: str = ""
    language: str = "python"
    path: str = ""
    cells_above: tuple[str, ...] = field(default_factory=tuple[str, ...])


def _cells_text(cells: tuple[str, ...]) -> str:
    """The cells nearest the cursor first kept, within MAX_CONTEXT_CHARS, in notebook order."""
    kept: list[str] = []
    room = MAX_CONTEXT_CHARS
    for cell in reversed(cells):
        if len(cell) > room:
            break
        kept.append(cell)
        room -= len(cell)
    return "\n\n".join(f"<cell>\n{cell}\n</cell>" for cell in reversed(kept))


def completion_prompt(ask: CompletionAsk) -> str:
    prefix = ask.prefix[-MAX_PREFIX_CHARS:]
    suffix = ask.suffix[:MAX_SUFFIX_CHARS]
    where = f" in {ask.path}" if ask.path else ""
    parts = [f"Language: {ask.language}{where}"]
    if ask.cells_above:
        parts.append(f"Cells above:\n{_cells_text(ask.cells_above)}")
    parts.append(f"Code before the cursor:\n{prefix}<cursor/>{suffix}")
    return "\n\n".join(parts)


def completion_request(
    model: str, ask: CompletionAsk, max_tokens: int = DEFAULT_MAX_TOKENS
) -> ProviderRequest:
    return ProviderRequest(
        model=model,
        system=[SystemSection(name="completion", text=COMPLETION_INSTRUCTIONS)],
        messages=[UserMessage(content=[TextBlock(text=completion_prompt(ask))])],
        max_tokens=max_tokens,
    )


def clean_completion(text: str, ask: CompletionAsk) -> str:
    """The model's answer as text to insert: a fenced block unwrapped, a repeat of the
    cursor's line (which some models start with) dropped, and nothing that only repeats the
    code after the cursor."""
    fenced = _FENCE.match(text.strip())
    if fenced:
        text = fenced.group(1)
    line = ask.prefix.rsplit("\n", 1)[-1]
    if line.strip() and text.startswith(line):
        text = text[len(line) :]
    text = text.rstrip()
    if not text.strip() or (ask.suffix.strip() and ask.suffix.startswith(text)):
        return ""
    return text


async def complete(
    provider: Provider, ask: CompletionAsk, max_tokens: int = DEFAULT_MAX_TOKENS
) -> str:
    """The text to insert at the cursor ('' when the model proposes nothing). A provider's
    failure is a ProviderError, with the provider's own words."""
    async for event in provider.stream(completion_request(provider.model, ask, max_tokens)):
        if isinstance(event, MessageDone):
            return clean_completion(event.message.text, ask)
    raise ProviderError(f"{provider.model} ended the completion without a message")
