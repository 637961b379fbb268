"""L2 providers: Anthropic, OpenAI-compatible and scripted, behind the Provider contract.

Importing this package never imports a provider SDK; each adapter imports its SDK at its first
request.
"""

from shard_core.providers.anthropic import AnthropicProvider
from shard_core.providers.models import (
    CONTEXT_WINDOWS,
    DEMO_MODEL,
    ModelSpec,
    context_window_for,
    create_provider,
    parse_model,
    resolve_default_model,
)
from shard_core.providers.openai import OpenAIProvider
from shard_core.providers.pricing import PRICES, cost, price_for
from shard_core.providers.script import Expectation, Script, ScriptStep, ScriptToolCall
from shard_core.providers.scripted import ScriptedProvider

__all__ = [
    "CONTEXT_WINDOWS",
    "DEMO_MODEL",
    "PRICES",
    "AnthropicProvider",
    "Expectation",
    "ModelSpec",
    "OpenAIProvider",
    "Script",
    "ScriptStep",
    "ScriptToolCall",
    "ScriptedProvider",
    "context_window_for",
    "cost",
    "create_provider",
    "parse_model",
    "price_for",
    "resolve_default_model",
]
