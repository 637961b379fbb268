"""Provider: turns (system, messages, tools) into a streamed assistant message; ProviderSpec:
everything a provider is (its prefix, how to build it, its models' facts, its wire body)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from shard_core.types import JsonObject, ProviderRequest, StreamEvent
from shard_core.types.usage import Price


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


@dataclass(frozen=True, slots=True)
class ModelFamily:
    """Facts about the models whose name contains `match` (case-insensitive; the longest match
    among a provider's families wins; `""` matches each of its models)."""

    match: str
    context_window: int | None = None
    price: Price | None = None
    """None: the cost of a request is unknown (never a made-up $0)"""


@dataclass(frozen=True, slots=True)
class ProviderSetup:
    """What a ProviderSpec's `build` is given: the parsed model string with the facts the core
    looked up for it (its key, base URL, context window, price)."""

    model: str
    text: str
    """the model string after `prefix/`, as written"""
    base_url: str | None
    """the model string's `@url`, else `providers.<prefix>.base_url`, else `base_url_env`"""
    api_key: str | None
    """`providers.<prefix>.credential` or `.api_key` in config.json, else `env_keys[0]`"""
    context_window: int
    price: Price | None
    prices: Mapping[str, Price]
    """config.json `prices` (they win over the families), for a provider that prices itself"""
    env: Mapping[str, str]


ModelParser = Callable[[str], tuple[str, str | None]]
"""The part after `prefix/` → (model, base URL or None); raises ConfigError when malformed."""
WireBody = Callable[[ProviderRequest, Mapping[str, object]], JsonObject]
"""The JSON body the provider's SDK sends for a request, given its recorded wire options."""


def verbatim(text: str) -> tuple[str, str | None]:
    """The default ModelParser: the whole text is the model name (a path may hold `@`)."""
    return text, None


@dataclass(frozen=True, slots=True)
class ProviderSpec:
    """Everything a provider is; `api.register_provider(ProviderSpec(...))`, bundled or not.

    `name` of the Provider it builds is `prefix` (the log records it; provenance finds the
    spec's `wire_body` by it). The default model (`resolve_default_model`) is the first spec in
    `priority` order (lower first) that has a `default_model` and is configured: a key or
    credential in `providers.<prefix>`, one of `env_keys` set, or — when `keyless` (a local
    server needs no key) — a base URL in config or `base_url_env`.
    """

    prefix: str
    build: Callable[[ProviderSetup], Provider]
    parse: ModelParser = verbatim
    env_keys: tuple[str, ...] = ()
    """the variables that configure it; the first one holds the API key"""
    base_url_env: str | None = None
    keyless: bool = False
    default_model: str | Callable[[Mapping[str, str]], str] | None = None
    """the model part of the default model string (a function: read from the environment)"""
    priority: int = 100
    families: tuple[ModelFamily, ...] = ()
    wire_body: WireBody | None = None
    """None: provenance shows the neutral request"""
    forms: tuple[str, ...] = ()
    """the model strings it accepts, for error messages (`openai/<model>@<base_url>`)"""
