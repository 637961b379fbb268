"""Model prices (USD per million tokens) and the cost of one request's Usage.

Lookup is by family: the longest table key contained in the model name wins, so
`claude-sonnet-4-5-20250929` is priced as `sonnet` and `gpt-4o-mini` as `gpt-4o-mini`, not
`gpt-4o`. `config.prices` entries are consulted first, with the same rule. An unknown model
(a local Ollama or vLLM one, say) has an unknown cost (None), never a made-up $0.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from shard_core.engine.config import Price
from shard_core.types.usage import Usage

PRICES: Mapping[str, Price] = {
    "opus": Price(input=15, output=75, cache_read=1.5, cache_write=18.75),
    "opus-4-5": Price(input=5, output=25, cache_read=0.5, cache_write=6.25),
    "sonnet": Price(input=3, output=15, cache_read=0.3, cache_write=3.75),
    "haiku": Price(input=0.8, output=4, cache_read=0.08, cache_write=1),
    "haiku-4-5": Price(input=1, output=5, cache_read=0.1, cache_write=1.25),
    "gpt-5": Price(input=1.25, output=10, cache_read=0.125),
    "gpt-5-mini": Price(input=0.25, output=2, cache_read=0.025),
    "gpt-5-nano": Price(input=0.05, output=0.4, cache_read=0.005),
    "gpt-4o": Price(input=2.5, output=10, cache_read=1.25),
    "gpt-4o-mini": Price(input=0.15, output=0.6, cache_read=0.075),
}
"""Built-in prices by family; `config.prices` adds to and overrides these."""

_PER_TOKEN = 1 / 1_000_000
_PROVIDER_PREFIXES = ("anthropic/", "openai/", "scripted/")
V = TypeVar("V")


def bare_model(model: str) -> str:
    """`anthropic/claude-x@url` and `claude-x` name the same model for lookups."""
    name = model.partition("@")[0].lower()
    for prefix in _PROVIDER_PREFIXES:
        name = name.removeprefix(prefix)
    return name


def find_family(model: str, table: Mapping[str, V]) -> V | None:
    """The value of the longest key of `table` found in the model name (case-insensitive)."""
    name = bare_model(model)
    if model in table:
        return table[model]
    matches = [key for key in table if key.lower() in name]
    return table[max(matches, key=len)] if matches else None


def price_for(model: str, overrides: Mapping[str, Price] | None = None) -> Price | None:
    """The configured price if any matches, else the built-in one, else None (unknown)."""
    if overrides and (price := find_family(model, overrides)) is not None:
        return price
    return find_family(model, PRICES)


def cost(model: str, usage: Usage, overrides: Mapping[str, Price] | None = None) -> float | None:
    """What `usage` cost in US dollars; None for a model with no known price."""
    price = price_for(model, overrides)
    if price is None:
        return None
    total = (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cache_read_tokens * price.cache_read
        + usage.cache_write_tokens * price.cache_write
    )
    return round(total * _PER_TOKEN, 10)


def with_cost(model: str, usage: Usage, overrides: Mapping[str, Price] | None = None) -> Usage:
    """`usage` with `cost_usd` filled in."""
    return usage.model_copy(update={"cost_usd": cost(model, usage, overrides)})
