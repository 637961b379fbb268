"""Provider: turns (system, messages, tools) into a streamed assistant message."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from shard_core.types import ProviderRequest, StreamEvent


class Provider(Protocol):
    """Implementations translate SDK errors into `shard_core.types.errors.ProviderError`s."""

    name: str
    model: str
    context_window: int

    def stream(self, request: ProviderRequest) -> AsyncIterator[StreamEvent]:
        """Stream deltas, ending with exactly one `MessageDone`."""
        ...
