"""Model strings: `prefix/rest` parsing, the spec a prefix names, the default model (the specs
in priority order), and building the Provider a string names from its spec.

Every fact about a provider (its model forms, keys, default model, families) is its
ProviderSpec's; this module only looks them up, in the specs given (an agent's: every
registered one) or the bundled ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from shard_core.contracts.provider import Provider, ProviderSetup, ProviderSpec
from shard_core.engine.config import ProviderConfig, ShardConfig
from shard_core.engine.credentials import resolve_credential
from shard_core.providers.bundled import BUNDLED
from shard_core.providers.families import context_window, price
from shard_core.providers.pricing import CONTEXT_WINDOWS, context_window_for
from shard_core.providers.unconfigured import FIRST_CONTACT, NO_MODEL
from shard_core.types.errors import ConfigError

__all__ = [
    "ACCEPTED_FORMS",
    "CONTEXT_WINDOWS",
    "DEMO_MODEL",
    "FIRST_CONTACT",
    "NO_MODEL",
    "ModelSpec",
    "accepted_forms",
    "context_window_for",
    "create_provider",
    "find_spec",
    "parse_model",
    "resolve_default_model",
]

DEMO_MODEL = "scripted/demo"


def accepted_forms(specs: Iterable[ProviderSpec] = BUNDLED) -> str:
    return ", ".join(form for spec in specs for form in spec.forms)


ACCEPTED_FORMS = accepted_forms()


@dataclass(frozen=True, slots=True)
class ModelSpec:
    provider: str
    model: str
    base_url: str | None = None

    def __str__(self) -> str:
        suffix = f"@{self.base_url}" if self.base_url else ""
        return f"{self.provider}/{self.model}{suffix}"


def find_spec(prefix: str, specs: Iterable[ProviderSpec] = BUNDLED) -> ProviderSpec | None:
    """The spec registered for `prefix` (the last one, as a later registration replaces)."""
    found = [spec for spec in specs if spec.prefix == prefix]
    return found[-1] if found else None


def parse_model(text: str, specs: Iterable[ProviderSpec] = BUNDLED) -> ModelSpec:
    """`prefix/rest`, the rest read by the prefix's spec (`anthropic/<model>[@url]`, …)."""
    specs = list(specs)
    forms = accepted_forms(specs)
    provider, slash, rest = text.strip().partition("/")
    if not slash or not rest:
        raise ConfigError(f"bad model {text!r}: expected one of {forms}")
    spec = find_spec(provider, specs)
    if spec is None:
        raise ConfigError(f"unknown provider {provider!r} in {text!r}: use one of {forms}")
    try:
        model, base_url = spec.parse(rest)
    except ConfigError as exc:
        problem, colon, detail = str(exc).partition(":")
        if colon:
            raise ConfigError(f"{problem} in {text!r}:{detail}") from None
        raise ConfigError(f"{problem} in {text!r}: expected one of {forms}") from None
    return ModelSpec(provider, model, base_url)


def resolve_default_model(
    config: ShardConfig, env: Mapping[str, str], specs: Iterable[ProviderSpec] = BUNDLED
) -> tuple[str, bool]:
    """The model to use and whether it is the bundled demo (so the UI can say so).

    `config.model` if set; else the default model of the first spec (by `priority`, then
    registration order) that is configured (see ProviderSpec): Anthropic with a key, then
    OpenAI with a key or a base URL (`OPENAI_MODEL` names its model); else NO_MODEL. The
    scripted demo plays only where it is asked for by name (`shard demo`, `--model
    scripted/demo`, a notebook's metadata naming its script): its replies are written for its
    own project, and anywhere else they "fail" inside it.
    """
    if config.model:
        return config.model, config.model.strip() == DEMO_MODEL
    for spec in sorted(specs, key=lambda s: s.priority):  # sorted is stable: ties keep order
        if spec.default_model is not None and _configured(spec, config, env):
            default = spec.default_model
            model = default if isinstance(default, str) else default(env)
            return f"{spec.prefix}/{model}", False
    return NO_MODEL, False


def _configured(spec: ProviderSpec, config: ShardConfig, env: Mapping[str, str]) -> bool:
    settings = config.providers.get(spec.prefix, ProviderConfig())
    if settings.api_key or settings.credential or any(env.get(k) for k in spec.env_keys):
        return True
    if not spec.keyless:
        return False
    return bool(settings.base_url or (spec.base_url_env and env.get(spec.base_url_env)))


def create_provider(
    model: ModelSpec | str,
    config: ShardConfig,
    env: Mapping[str, str],
    specs: Iterable[ProviderSpec] = BUNDLED,
) -> Provider:
    """The Provider a model string names, built by its spec from the facts looked up for it:
    its key from `config.providers` (a named credential or an inline key) or the environment,
    its context window and price from config.json, then the spec's families."""
    specs = list(specs)
    if isinstance(model, str) and model.strip() == NO_MODEL:
        model = ModelSpec(NO_MODEL, "")
    parsed = parse_model(model, specs) if isinstance(model, str) else model
    spec = find_spec(parsed.provider, specs)
    if spec is None:
        raise ConfigError(f"no provider registered for {parsed.provider!r} (model {model})")
    settings = config.providers.get(spec.prefix, ProviderConfig())
    key_variable = spec.env_keys[0] if spec.env_keys else None
    base_env = env.get(spec.base_url_env) if spec.base_url_env else None
    setup = ProviderSetup(
        model=parsed.model,
        text=str(model).strip().partition("/")[2],
        base_url=parsed.base_url or settings.base_url or base_env,
        api_key=_api_key(settings, config, env, key_variable),
        context_window=context_window(
            spec.families, parsed.model, config.context_windows, spec.prefix
        ),
        price=price(spec.families, parsed.model, config.prices),
        prices=config.prices,
        env=env,
    )
    return spec.build(setup)


def _api_key(
    settings: ProviderConfig, config: ShardConfig, env: Mapping[str, str], variable: str | None
) -> str | None:
    if settings.credential:
        return resolve_credential(config, settings.credential, env)
    return settings.api_key or (env.get(variable) if variable else None)
