"""Token and cost accounting for one provider request, a turn or a session."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from shard_core.types.base import WireModel

_PER_TOKEN = 1 / 1_000_000


class Usage(WireModel):
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None = Field(
        default=0.0, description="US dollars; null when a request's model has no known price"
    )

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            cost_usd=add_costs(self.cost_usd, other.cost_usd),
        )

    @property
    def context_tokens(self) -> int:
        """Tokens the request carried as context: fresh input plus cached reads and writes."""
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens


def add_costs(a: float | None, b: float | None) -> float | None:
    """A sum with an unknown part is unknown: $0.10 + unknown is not $0.10."""
    if a is None or b is None:
        return None
    return round(a + b, 10)


class Price(BaseModel):
    """US dollars per million tokens (config.json `prices`, a provider's model families)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0

    def cost(self, usage: Usage) -> float:
        """What `usage` cost at this price, in US dollars."""
        total = (
            usage.input_tokens * self.input
            + usage.output_tokens * self.output
            + usage.cache_read_tokens * self.cache_read
            + usage.cache_write_tokens * self.cache_write
        )
        return round(total * _PER_TOKEN, 10)
