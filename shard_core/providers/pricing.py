"""The bundled family table: every bundled spec's model families as one table, for a lookup by
model name alone (no provider given: `anthropic/claude-x@url` and `claude-x` name the same
model). An agent looks facts up in its own provider's spec instead (providers/models.py).
"""

from __future__ import annotations

from collections.abc import Mapping

from shard_core.providers.bundled import BUNDLED
from shard_core.providers.families import DEFAULT_CONTEXT_WINDOW, find_family, priced
from shard_core.types.usage import Price, Usage

PRICES: Mapping[str, Price] = {
    f.match: f.price for spec in BUNDLED for f in spec.families if f.price is not None
}
"""Built-in prices by family; `config.prices` adds to and overrides these."""
CONTEXT_WINDOWS: Mapping[str, int] = {
    (f.match or spec.prefix): f.context_window
    for spec in BUNDLED
    for f in spec.families
    if f.context_window is not None
}
"""Context windows by family (longest key contained in the name wins); a spec's family for
all its models (`""`) under the spec's prefix."""
_PREFIXES = tuple(f"{spec.prefix}/" for spec in BUNDLED)


def bare_model(model: str) -> str:
    """`anthropic/claude-x@url` and `claude-x` name the same model for lookups."""
    name = model.partition("@")[0].lower()
    for prefix in _PREFIXES:
        name = name.removeprefix(prefix)
    return name


def context_window_for(model: str, overrides: Mapping[str, int] | None = None) -> int:
    """`config.context_windows` first (same family rule), then the table, then 128k."""
    name = bare_model(model)
    if overrides and (window := find_family(model, overrides, name)) is not None:
        return window
    return find_family(model, CONTEXT_WINDOWS, name) or DEFAULT_CONTEXT_WINDOW


def price_for(model: str, overrides: Mapping[str, Price] | None = None) -> Price | None:
    """The configured price if any matches, else the built-in one, else None (unknown)."""
    name = bare_model(model)
    if overrides and (price := find_family(model, overrides, name)) is not None:
        return price
    return find_family(model, PRICES, name)


def cost(model: str, usage: Usage, overrides: Mapping[str, Price] | None = None) -> float | None:
    """What `usage` cost in US dollars; None for a model with no known price."""
    price = price_for(model, overrides)
    return None if price is None else price.cost(usage)


def with_cost(model: str, usage: Usage, overrides: Mapping[str, Price] | None = None) -> Usage:
    """`usage` with `cost_usd` filled in."""
    return priced(usage, price_for(model, overrides))
