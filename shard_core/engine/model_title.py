"""The optional model-written session title (config `titles.model: true`).

After the first turn, one small request asks the agent's own provider for a short title of the
first prompt; the answer replaces the deterministic title as a `TitleCheckpoint` with source
`model`. It runs after the turn has ended, in the background (a title never delays a reply), is
recorded in the usage history like any request, and a failure leaves the deterministic title.
The request is not part of the conversation: no later request carries it, so it needs no
provenance of its own beyond the title it produced.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from shard_core.contracts import Provider
from shard_core.engine.titles import TITLE_CHARS, clean_title
from shard_core.engine.usage_history import UsageLog
from shard_core.types import (
    MessageDone,
    ProviderRequest,
    SystemSection,
    TextBlock,
    Usage,
    UserMessage,
)
from shard_core.types.errors import ProviderError, SessionError

TITLE_INSTRUCTIONS = (
    "Write a title of 3 to 7 words for a coding session that starts with the user's message "
    "below. Answer with the title only: no quotes, no punctuation at the end."
)
PROMPT_CHARS = 2000
TITLE_MAX_TOKENS = 32


def title_request(provider: Provider, prompt: str) -> ProviderRequest:
    return ProviderRequest(
        model=provider.model,
        system=[SystemSection(name="title", text=TITLE_INSTRUCTIONS)],
        messages=[UserMessage(content=[TextBlock(text=prompt[:PROMPT_CHARS])])],
        max_tokens=TITLE_MAX_TOKENS,
    )


async def model_title(provider: Provider, prompt: str) -> tuple[str | None, Usage]:
    """The provider's title for `prompt` (None when it gave nothing usable), and the usage."""
    try:
        async for event in provider.stream(title_request(provider, prompt)):
            if isinstance(event, MessageDone):
                lines = [line for line in event.message.text.splitlines() if line.strip()]
                text = clean_title(lines[0].strip(" \"'`*#.")) if lines else ""
                return (text[:TITLE_CHARS] or None), event.usage
    except ProviderError:
        pass
    return None, Usage()


async def retitle(
    provider: Provider,
    prompt: str,
    usage: UsageLog,
    title: Callable[[], str | None],
    rename: Callable[[str], object],
) -> None:
    """Ask for the title, record the request's usage, and `rename` the session unless its
    `title()` changed meanwhile (someone renamed it)."""
    deterministic = title()
    found, used = await model_title(provider, prompt)
    if used != Usage():
        with contextlib.suppress(OSError):
            usage.record(provider, used)
    if found and title() == deterministic:  # a checkpoint: never model-visible
        with contextlib.suppress(SessionError, OSError, ValueError):  # the log closed meanwhile
            rename(found)
