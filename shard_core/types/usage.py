"""Token and cost accounting for one provider request, a turn or a session."""

from __future__ import annotations

from shard_core.types.base import WireModel


class Usage(WireModel):
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float = 0.0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            cost_usd=round(self.cost_usd + other.cost_usd, 10),
        )

    @property
    def context_tokens(self) -> int:
        """Tokens the request carried as context: fresh input plus cached reads and writes."""
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens
