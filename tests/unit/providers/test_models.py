"""Model strings, the default model, context windows and building providers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import shard_core.providers
from shard_core.engine.config import ProviderConfig, ShardConfig
from shard_core.providers import (
    AnthropicProvider,
    ModelSpec,
    OpenAIProvider,
    ScriptedProvider,
    context_window_for,
    create_provider,
    parse_model,
    resolve_default_model,
)
from shard_core.types.errors import ConfigError

PROVIDERS_DIR = Path(shard_core.providers.__file__).parent


def test_exported_members() -> None:
    assert shard_core.providers.__all__ == [
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


def test_no_module_imports_an_sdk_at_import_time() -> None:
    """Unindented imports run at import; SDKs may only be imported inside functions."""
    sdks = {"anthropic", "openai", "httpx2", "httpx"}
    found = [
        f"{path.name}: {line}"
        for path in sorted(PROVIDERS_DIR.glob("*.py"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.startswith(("import ", "from ")) and line.split()[1].split(".")[0] in sdks
    ]
    assert found == []


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("anthropic/claude-sonnet-4-6", ModelSpec("anthropic", "claude-sonnet-4-6")),
        ("openai/gpt-5", ModelSpec("openai", "gpt-5")),
        (
            "openai/qwen2.5-coder:7b@http://127.0.0.1:11434/v1",
            ModelSpec("openai", "qwen2.5-coder:7b", "http://127.0.0.1:11434/v1"),
        ),
        ("openai/meta-llama/Llama-3-8B", ModelSpec("openai", "meta-llama/Llama-3-8B")),
        (
            "  anthropic/claude-x@https://proxy.example/  ",
            ModelSpec("anthropic", "claude-x", "https://proxy.example/"),
        ),
        ("scripted/demo", ModelSpec("scripted", "demo")),
        ("scripted/./my script.json", ModelSpec("scripted", "./my script.json")),
        ("scripted//abs/path.jsonl", ModelSpec("scripted", "/abs/path.jsonl")),
    ],
)
def test_parse_model(spec: str, expected: ModelSpec) -> None:
    assert parse_model(spec) == expected
    assert parse_model(str(expected)) == expected


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("claude-sonnet-4-6", "bad model 'claude-sonnet-4-6': expected one of anthropic/<model>"),
        ("", "bad model ''"),
        ("openai/", "bad model 'openai/'"),
        ("scripted/", "bad model 'scripted/'"),
        ("gemini/pro", "unknown provider 'gemini'"),
        ("openai/@http://x", "bad model name"),
        ("openai/gpt 5", "bad model name"),
        ("openai/llama@127.0.0.1:11434", "must start with http:// or https://"),
        ("openai/llama@", "must start with http:// or https://"),
    ],
)
def test_bad_model_strings_say_the_accepted_forms(spec: str, problem: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_model(spec)
    message = str(caught.value)
    assert problem in message
    if "base URL" not in message:
        assert "openai/<model>@<base_url>" in message
        assert "scripted/demo" in message


@pytest.mark.parametrize(
    ("config", "env", "expected"),
    [
        (ShardConfig(model="openai/gpt-4o"), {"ANTHROPIC_API_KEY": "k"}, ("openai/gpt-4o", False)),
        (
            ShardConfig(),
            {"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k"},
            ("anthropic/claude-sonnet-4-6", False),
        ),
        (
            ShardConfig(providers={"anthropic": ProviderConfig(api_key="k")}),
            {},
            ("anthropic/claude-sonnet-4-6", False),
        ),
        (ShardConfig(), {"OPENAI_API_KEY": "k"}, ("openai/gpt-5", False)),
        (
            ShardConfig(),
            {"OPENAI_BASE_URL": "http://127.0.0.1:8000/v1", "OPENAI_MODEL": "qwen"},
            ("openai/qwen", False),
        ),
        (
            ShardConfig(providers={"openai": ProviderConfig(base_url="http://h/v1")}),
            {},
            ("openai/gpt-5", False),
        ),
        (ShardConfig(), {"ANTHROPIC_API_KEY": ""}, ("none", False)),
        (ShardConfig(), {}, ("none", False)),  # no model: never the demo unless named
    ],
)
def test_resolve_default_model(
    config: ShardConfig, env: dict[str, str], expected: tuple[str, bool]
) -> None:
    assert resolve_default_model(config, env) == expected


@pytest.mark.parametrize(
    ("model", "window"),
    [
        ("claude-sonnet-4-6", 200_000),
        ("claude-3-5-haiku-20241022", 200_000),
        ("gpt-5", 400_000),
        ("gpt-5-mini", 400_000),
        ("gpt-4o-2024-08-06", 128_000),
        ("qwen2.5-coder:7b", 128_000),
    ],
)
def test_context_windows(model: str, window: int) -> None:
    assert context_window_for(model) == window


def test_context_windows_can_be_configured() -> None:
    overrides = {"qwen": 32_768, "claude-sonnet-4-6": 1_000_000}
    assert context_window_for("qwen2.5-coder:7b", overrides) == 32_768
    assert context_window_for("claude-sonnet-4-6", overrides) == 1_000_000
    assert context_window_for("claude-opus-4-1", overrides) == 200_000


def test_create_anthropic_provider_from_env() -> None:
    config = ShardConfig(context_windows={"claude-sonnet": 1_000_000})
    provider = create_provider("anthropic/claude-sonnet-4-6", config, {"ANTHROPIC_API_KEY": "k"})
    assert isinstance(provider, AnthropicProvider)
    assert (provider.name, provider.model, provider.context_window) == (
        "anthropic",
        "claude-sonnet-4-6",
        1_000_000,
    )


def test_config_keys_win_over_env_and_spec_urls_over_config() -> None:
    config = ShardConfig(
        providers={"openai": ProviderConfig(api_key="from-config", base_url="http://cfg/v1")}
    )
    env = {"OPENAI_API_KEY": "from-env", "OPENAI_BASE_URL": "http://env/v1"}
    provider = create_provider("openai/gpt-4o", config, env)
    assert isinstance(provider, OpenAIProvider)
    assert (provider._api_key, provider._base_url) == ("from-config", "http://cfg/v1")  # pyright: ignore[reportPrivateUsage]
    local = create_provider(
        parse_model("openai/llama3@http://127.0.0.1:11434/v1"), ShardConfig(), {}
    )
    assert isinstance(local, OpenAIProvider)
    assert (local._api_key, local._base_url) == ("not-needed", "http://127.0.0.1:11434/v1")  # pyright: ignore[reportPrivateUsage]
    assert local.context_window == 128_000


@pytest.mark.parametrize(
    ("spec", "variable"),
    [("anthropic/claude-x", "ANTHROPIC_API_KEY"), ("openai/gpt-5", "OPENAI_API_KEY")],
)
def test_a_missing_key_is_a_config_error(spec: str, variable: str) -> None:
    with pytest.raises(ConfigError, match=f"set {variable} or providers"):
        create_provider(spec, ShardConfig(), {})


def test_create_scripted_providers(tmp_path: Path) -> None:
    demo = create_provider("scripted/demo", ShardConfig(), {})
    assert isinstance(demo, ScriptedProvider)
    assert (demo.name, demo.model, demo.context_window) == ("scripted", "demo", 200_000)
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"name": "s", "steps": [{"text": "hi"}]}))
    from_file = create_provider(f"scripted/{script}", ShardConfig(), {})
    assert isinstance(from_file, ScriptedProvider)
    assert from_file.remaining == 1
    session = tmp_path / "s.jsonl"
    session.write_text("")
    replay = create_provider(f"scripted/{session}", ShardConfig(), {})
    assert isinstance(replay, ScriptedProvider)
    assert replay.remaining == 0
    with pytest.raises(ConfigError, match="no script file at"):
        create_provider(f"scripted/{tmp_path / 'missing.json'}", ShardConfig(), {})
