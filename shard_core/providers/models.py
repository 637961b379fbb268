"""Model strings: parsing `provider/model[@base_url]`, the default choice, context windows, and
building the Provider a string names."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from shard_core.contracts.provider import Provider
from shard_core.engine.config import ProviderConfig, ShardConfig
from shard_core.engine.credentials import resolve_credential
from shard_core.providers.pricing import find_family
from shard_core.types.errors import ConfigError

ProviderName = Literal["anthropic", "openai", "scripted"]

DEMO_MODEL = "scripted/demo"
NO_MODEL = "none"
"""What `resolve_default_model` gives when nothing names a model: an agent whose every prompt
is answered with FIRST_CONTACT (no model is called; see providers/unconfigured.py)."""
FIRST_CONTACT = (
    "no model configured — set ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL (a local "
    "server), put a model in config.json, or pass --model (a kernel: KERNEL_SHARD_MODEL); "
    "`shard demo` shows a scripted run"
)
DEFAULT_ANTHROPIC_MODEL = "anthropic/claude-sonnet-4-6"
DEFAULT_OPENAI_MODEL = "gpt-5"
LOCAL_API_KEY = "not-needed"
"""What an OpenAI-compatible local server (Ollama, vLLM, llama.cpp) gets as its API key."""

ACCEPTED_FORMS = (
    "anthropic/<model> (e.g. anthropic/claude-sonnet-4-5), "
    "openai/<model> (e.g. openai/gpt-5), "
    "openai/<model>@<base_url> (e.g. openai/qwen2.5-coder@http://127.0.0.1:11434/v1), "
    "scripted/demo, scripted/<script.json> or scripted/<session.jsonl>"
)

DEFAULT_CONTEXT_WINDOW = 128_000
CONTEXT_WINDOWS: Mapping[str, int] = {
    "claude-": 200_000,
    "gpt-5": 400_000,
    "gpt-4.1": 1_047_576,
    "gpt-4o": 128_000,
    "scripted": 200_000,
}
"""Context windows by family (longest key contained in the name wins)."""


@dataclass(frozen=True, slots=True)
class ModelSpec:
    provider: ProviderName
    model: str
    base_url: str | None = None

    def __str__(self) -> str:
        suffix = f"@{self.base_url}" if self.base_url else ""
        return f"{self.provider}/{self.model}{suffix}"


def parse_model(spec: str) -> ModelSpec:
    """`anthropic/<model>[@url]`, `openai/<model>[@url]`, `scripted/<file>` or `scripted/demo`."""
    provider, slash, rest = spec.strip().partition("/")
    if not slash or not rest:
        raise ConfigError(f"bad model {spec!r}: expected one of {ACCEPTED_FORMS}")
    if provider == "scripted":
        return ModelSpec("scripted", rest)
    if provider in ("anthropic", "openai"):
        model, at, base_url = rest.partition("@")
        if not model or any(c.isspace() for c in model):
            raise ConfigError(f"bad model name in {spec!r}: expected one of {ACCEPTED_FORMS}")
        if at and not base_url.startswith(("http://", "https://")):
            raise ConfigError(f"bad base URL in {spec!r}: it must start with http:// or https://")
        return ModelSpec(provider, model, base_url or None)
    raise ConfigError(f"unknown provider {provider!r} in {spec!r}: use one of {ACCEPTED_FORMS}")


def context_window_for(model: str, overrides: Mapping[str, int] | None = None) -> int:
    """`config.context_windows` first (same family rule), then the table, then 128k."""
    if overrides and (window := find_family(model, overrides)) is not None:
        return window
    return find_family(model, CONTEXT_WINDOWS) or DEFAULT_CONTEXT_WINDOW


def resolve_default_model(config: ShardConfig, env: Mapping[str, str]) -> tuple[str, bool]:
    """The model to use and whether it is the bundled demo (so the UI can say so).

    `config.model` if set; else Anthropic when it has a key (or names a credential); else OpenAI
    when it has a key, a credential or a base URL (`OPENAI_MODEL` names the model, default
    gpt-5); else NO_MODEL. The scripted demo plays only where it is asked for by name (`shard
    demo`, `--model scripted/demo`, a notebook's metadata naming its script): its replies are
    written for its own project, and anywhere else they "fail" inside it.
    """
    if config.model:
        return config.model, config.model.strip() == DEMO_MODEL
    anthropic = config.providers.get("anthropic", ProviderConfig())
    if anthropic.api_key or anthropic.credential or env.get("ANTHROPIC_API_KEY"):
        return DEFAULT_ANTHROPIC_MODEL, False
    openai = config.providers.get("openai", ProviderConfig())
    configured = openai.api_key or openai.credential or openai.base_url
    if configured or env.get("OPENAI_API_KEY") or env.get("OPENAI_BASE_URL"):
        return f"openai/{env.get('OPENAI_MODEL') or DEFAULT_OPENAI_MODEL}", False
    return NO_MODEL, False


def create_provider(spec: ModelSpec | str, config: ShardConfig, env: Mapping[str, str]) -> Provider:
    """The Provider a model string names; its key from `config.providers` (a named credential or
    an inline key) or the environment."""
    spec = parse_model(spec) if isinstance(spec, str) else spec
    # "scripted:demo" so that a scripted model finds the `scripted` row of the table
    name = f"scripted:{spec.model}" if spec.provider == "scripted" else spec.model
    window = context_window_for(name, config.context_windows)
    settings = config.providers.get(spec.provider, ProviderConfig())
    if spec.provider == "scripted":
        return _scripted(spec.model, window)
    prefix = spec.provider.upper()
    api_key = _api_key(settings, config, env, f"{prefix}_API_KEY")
    base_url = spec.base_url or settings.base_url or env.get(f"{prefix}_BASE_URL")
    # The adapters import this module for their context windows, so they are imported here.
    if spec.provider == "anthropic":
        from shard_core.providers.anthropic import AnthropicProvider

        if not api_key:
            raise ConfigError(_no_key("anthropic", "ANTHROPIC_API_KEY"))
        return AnthropicProvider(
            spec.model,
            api_key=api_key,
            base_url=base_url,
            context_window=window,
            prices=config.prices,
        )
    from shard_core.providers.openai import OpenAIProvider

    if not api_key and not base_url:
        raise ConfigError(
            _no_key("openai", "OPENAI_API_KEY") + ", or a base URL for a local server"
        )
    return OpenAIProvider(
        spec.model,
        api_key=api_key or LOCAL_API_KEY,
        base_url=base_url,
        context_window=window,
        prices=config.prices,
    )


def _scripted(target: str, window: int) -> Provider:
    from shard_core.providers.scripted import ScriptedProvider

    if target == "demo":
        return ScriptedProvider.demo(context_window=window)
    path = Path(target).expanduser()
    if not path.is_file():
        raise ConfigError(f"scripted model: no script file at {path}")
    if path.suffix == ".jsonl":
        return ScriptedProvider.from_session(path, context_window=window)
    return ScriptedProvider.from_file(path, context_window=window)


def _api_key(
    settings: ProviderConfig, config: ShardConfig, env: Mapping[str, str], variable: str
) -> str | None:
    if settings.credential:
        return resolve_credential(config, settings.credential, env)
    return settings.api_key or env.get(variable)


def _no_key(provider: str, variable: str) -> str:
    where = f"providers.{provider}.credential (a named entry of credentials) in config.json"
    return f"{provider} needs an API key: set {variable} or {where}"
