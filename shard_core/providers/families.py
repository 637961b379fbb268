"""Model families: a provider's facts by model name (context window, price), config.json's
overrides of them, and the model-string pieces the bundled specs share.

Lookup is by family: the longest key contained in the model name wins, so
`claude-sonnet-4-5-20250929` is priced as `sonnet` and `gpt-4o-mini` as `gpt-4o-mini`, not
`gpt-4o`. Config entries (`prices`, `context_windows`) are consulted first, with the same rule.
A model with no price has an unknown cost (None), never a made-up $0. A leaf: the adapters
import it, it imports no adapter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

from shard_core.contracts.provider import ModelFamily
from shard_core.types.errors import ConfigError
from shard_core.types.usage import Price, Usage

DEFAULT_CONTEXT_WINDOW = 128_000
"""A model no family and no config entry knows."""
V = TypeVar("V")


def find_family(model: str, table: Mapping[str, V], name: str | None = None) -> V | None:
    """The value of the longest key of `table` found in the model name (case-insensitive);
    `name`: the name to search when it is not `model` (a bare one)."""
    if model in table:
        return table[model]
    name = (name if name is not None else model.partition("@")[0]).lower()
    matches = [key for key in table if key.lower() in name]
    return table[max(matches, key=len)] if matches else None


def windows(families: Sequence[ModelFamily]) -> dict[str, int]:
    return {f.match: f.context_window for f in families if f.context_window is not None}


def prices(families: Sequence[ModelFamily]) -> dict[str, Price]:
    return {f.match: f.price for f in families if f.price is not None}


def context_window(
    families: Sequence[ModelFamily],
    model: str,
    overrides: Mapping[str, int] | None = None,
    prefix: str | None = None,
) -> int:
    """`overrides` by family (or naming the provider's `prefix` as a whole), then the
    families, then 128k."""
    if overrides:
        if (window := find_family(model, overrides)) is not None:
            return window
        if prefix is not None and prefix in overrides:
            return overrides[prefix]
    return find_family(model, windows(families)) or DEFAULT_CONTEXT_WINDOW


def price(
    families: Sequence[ModelFamily], model: str, overrides: Mapping[str, Price] | None = None
) -> Price | None:
    """The configured price if any matches, else the families', else None (unknown)."""
    if overrides and (found := find_family(model, overrides)) is not None:
        return found
    return find_family(model, prices(families))


def priced(usage: Usage, found: Price | None) -> Usage:
    """`usage` with `cost_usd` at `found` (None when the price is unknown)."""
    return usage.model_copy(update={"cost_usd": found.cost(usage) if found else None})


def name_at_url(text: str) -> tuple[str, str | None]:
    """The ModelParser of an HTTP provider: `<model>[@<base_url>]`."""
    model, at, base_url = text.partition("@")
    if not model or any(c.isspace() for c in model):
        raise ConfigError("bad model name")
    if at and not base_url.startswith(("http://", "https://")):
        raise ConfigError("bad base URL: it must start with http:// or https://")
    return model, base_url or None


def no_key(provider: str, variable: str) -> str:
    """What a provider that needs a key says when it has none."""
    where = f"providers.{provider}.credential (a named entry of credentials) in config.json"
    return f"{provider} needs an API key: set {variable} or {where}"
