"""UnconfiguredProvider: the agent's provider when no model is configured.

Every surface builds such an agent as usual (a Lab agent, a `shard` notebook, `%shard new`,
`shard run`): its commands work, and each prompt's turn ends at once with the first-contact
message (NoModelError, FIRST_CONTACT), which the surface shows as the turn's output. No model
is called and no scripted reply pretends to be one.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from shard_core.contracts.provider import Provider
from shard_core.providers.models import FIRST_CONTACT, NO_MODEL
from shard_core.types import ProviderRequest, StreamEvent
from shard_core.types.errors import NoModelError


class UnconfiguredProvider:
    name = NO_MODEL
    model = NO_MODEL
    context_window = 200_000

    async def stream(self, request: ProviderRequest) -> AsyncIterator[StreamEvent]:
        raise NoModelError(FIRST_CONTACT)
        yield  # an async generator, like every provider's stream


def unconfigured(provider: Provider) -> bool:
    """Whether `provider` is the stand-in for no model (a surface may say so before a turn)."""
    return isinstance(provider, UnconfiguredProvider)
