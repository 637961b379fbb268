"""UnconfiguredProvider: the agent's provider when no model is configured.

Every surface builds such an agent as usual (a Lab agent, a `shard` notebook, `%shard new`,
`shard run`): its commands work, and each prompt's turn ends at once with the first-contact
message (NoModelError, FIRST_CONTACT), which the surface shows as the turn's output. No model
is called and no scripted reply pretends to be one.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from shard_core.contracts.provider import ModelFamily, Provider, ProviderSetup, ProviderSpec
from shard_core.types import ProviderRequest, StreamEvent
from shard_core.types.errors import NoModelError

NO_MODEL = "none"
"""What `resolve_default_model` gives when nothing names a model: an agent whose every prompt
is answered with FIRST_CONTACT (no model is called)."""
FIRST_CONTACT = (
    "no model configured — set ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL (a local "
    "server) where Shard starts (JupyterLab: in the environment of `jupyter lab`, then restart "
    "it), put a model in ~/.config/shard/config.json, name one in JupyterLab's New agent form, "
    "or pass --model (a kernel: KERNEL_SHARD_MODEL); `shard demo` shows a scripted run"
)
_WINDOW = 200_000


class UnconfiguredProvider:
    name = NO_MODEL
    model = NO_MODEL
    context_window = _WINDOW

    async def stream(self, request: ProviderRequest) -> AsyncIterator[StreamEvent]:
        raise NoModelError(FIRST_CONTACT)
        yield  # an async generator, like every provider's stream


def unconfigured(provider: Provider) -> bool:
    """Whether `provider` is the stand-in for no model (a surface may say so before a turn)."""
    return isinstance(provider, UnconfiguredProvider)


def _build(_setup: ProviderSetup) -> UnconfiguredProvider:
    return UnconfiguredProvider()


SPEC = ProviderSpec(
    prefix=NO_MODEL, build=_build, families=(ModelFamily("", context_window=_WINDOW),)
)
"""The model string `none` (no `/<model>`) names it."""
