"""Provider: turns (system, messages, tools) into a streamed assistant message."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol, runtime_checkable

from shard_core.types import ProviderRequest, StreamEvent


class Provider(Protocol):
    """Implementations translate SDK errors into `shard_core.types.errors.ProviderError`s."""

    name: str
    model: str
    context_window: int

    def stream(self, request: ProviderRequest) -> AsyncIterator[StreamEvent]:
        """Stream deltas, ending with exactly one `MessageDone`."""
        ...


@runtime_checkable
class WireOptions(Protocol):
    """A provider whose wire request depends on settings beyond the ProviderRequest (which
    field carries max_tokens, say) reports them, so the log can rebuild the exact request."""

    def wire_options(self) -> dict[str, object]: ...
