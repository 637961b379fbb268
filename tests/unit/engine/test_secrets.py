"""Issue 20 items 4 and 5 in the engine: one definition of a secret, tool output redacted before
it is logged or broadcast, and credentials named in config instead of written into it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from shard_core.engine.config import ShardConfig, load_config
from shard_core.engine.credentials import known_secrets, resolve_credential
from shard_core.engine.session import AgentSession, SessionConfig
from shard_core.protocol.events import Event, ToolResultEvent
from shard_core.providers.models import create_provider, resolve_default_model
from shard_core.types import ToolResult
from shard_core.types.errors import ConfigError
from shard_core.types.secrets import (
    REDACTED,
    KnownSecrets,
    is_secret_name,
    looks_like_secret,
    secret_names,
)
from shard_kernel.gateway.security import Redactor
from tests.fixtures.function_provider import FunctionProvider, scripted

Make = Callable[..., AgentSession]
PASSWORD = "correct-horse-battery-staple"


@pytest.mark.parametrize(
    "name",
    ["DB_PASSWORD", "AZURE_OPENAI_KEY", "GITHUB_PAT", "MY_TOKEN", "GHTOKEN", "client_secret",
     "GOOGLE_APPLICATION_CREDENTIALS", "OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "KEY_FILE",
     "MYSQL_PWD", "NPM_AUTH", "ssh_passphrase", "TOKEN"],
)  # fmt: skip
def test_item4_secret_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name",
    ["PATH", "PWD", "OLDPWD", "MAX_TOKENS", "TOKENIZERS_PARALLELISM", "KEYBOARD", "HOME",
     "SSH_AUTH_SOCK", "TOKENS", "MONKEY_PATCH", "LANG"],
)  # fmt: skip
def test_item4_ordinary_names(name: str) -> None:
    assert not is_secret_name(name)


@pytest.mark.parametrize(
    "value",
    [
        "sk-ant-api03-abcdefghijklmnop",
        "sk-proj-abcdefghijklmnopqrstu",
        "ghp_abcdefghijklmnopqrstuvwxyz0123",
        "github_pat_11ABCDEFG0123456789_abc",
        "AKIAIOSFODNN7EXAMPLE",
        "xoxb-1234567890-abcdef",
        "xoxp-1234567890-abcdef",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig",
        "-----BEGIN OPENSSH PRIVATE KEY-----",
        "https://user:pa55word@example.com/",
        "Zx8Qv2LmN4pR7sT1uW3yA5bC6dE9fG0h",
    ],
)
def test_item4_secret_shapes(value: str) -> None:
    assert looks_like_secret(value)


@pytest.mark.parametrize(
    "value",
    [
        "4b825dc642cb6eb9a060e54bf8d69288fbee4904",  # a commit id
        "/usr/local/bin:/usr/bin:/bin",
        "en_US.UTF-8",
        "https://example.com/path",
        "xterm-256color",
        "550e8400-e29b-41d4-a716-446655440000",
    ],
)
def test_item4_ordinary_values(value: str) -> None:
    assert not looks_like_secret(value)


def test_item4_known_secrets_redact_every_part_of_a_result() -> None:
    secrets = KnownSecrets.from_environment({"DB_PASSWORD": PASSWORD, "HOME": "/home/me"})
    result = ToolResult.ok(f"pw={PASSWORD}", command=f"echo {PASSWORD}", nested={"v": [PASSWORD]})
    clean = secrets.redact_result(result)
    dumped = json.dumps(clean.model_dump(mode="json"))
    assert PASSWORD not in dumped
    assert clean.text == f"pw={REDACTED}"
    assert clean.details == {"command": f"echo {REDACTED}", "nested": {"v": [REDACTED]}}
    untouched = ToolResult.ok("/home/me")
    assert secrets.redact_result(untouched) is untouched


async def test_item4_a_secret_in_tool_output_is_redacted_before_log_and_broadcast(
    make_session: Make, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text(f"the db password is {PASSWORD}\n")
    provider = FunctionProvider(scripted({"tool_calls": [("read", {"path": "notes.txt"})]}, "ok"))
    session = make_session(provider, secrets=KnownSecrets([PASSWORD]))
    seen: list[Event] = []
    session.events.subscribe(seen.append)
    await session.run("read the notes")
    results = [e for e in seen if isinstance(e, ToolResultEvent)]
    assert len(results) == 1
    assert REDACTED in results[0].result.text
    assert PASSWORD not in "".join(e.model_dump_json() for e in seen)
    session.store.sync()
    assert PASSWORD not in session.store.path.read_text()
    assert PASSWORD not in provider.requests[1].model_dump_json()  # nor does the model see it


def test_item4_sessions_know_the_environment_secrets_by_default(
    monkeypatch: pytest.MonkeyPatch, workspace: Path
) -> None:
    monkeypatch.setenv("DB_PASSWORD", PASSWORD)
    config = SessionConfig(agent_id="a", cwd=workspace, roots=[workspace])
    assert PASSWORD in config.secrets


def test_item4_the_gateway_redactor_uses_the_same_definition() -> None:
    redactor = Redactor()
    redactor.add_environment({"DB_PASSWORD": PASSWORD, "OPAQUE": "AKIAIOSFODNN7EXAMPLE"})
    assert redactor(f"{PASSWORD} AKIAIOSFODNN7EXAMPLE") == "[secret] [secret]"
    assert redactor("token ghp_abcdefghijklmnopqrstuvwxyz0123 leaked") == "token [secret] leaked"
    assert secret_names({"GITHUB_PAT": "x", "PATH": "/bin"}) == {"GITHUB_PAT"}


# ------------------------------------------------------------ item 5: named credentials

KEY = "sk-test-credential-0123456789abcdef"


def _config(tmp_path: Path, body: dict[str, object]) -> ShardConfig:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(body))
    return load_config(path)


def test_item5_a_provider_names_a_credential_kept_in_a_file(tmp_path: Path) -> None:
    secret = tmp_path / "openai.key"
    secret.write_text(KEY + "\n")
    config = _config(
        tmp_path,
        {
            "credentials": {"work": {"file": str(secret)}},
            "providers": {"openai": {"credential": "work"}},
        },
    )
    assert resolve_credential(config, "work", {}) == KEY
    assert resolve_default_model(config, {}) == ("openai/gpt-5", False)
    provider = create_provider("openai/gpt-5", config, {})
    assert provider._api_key == KEY  # pyright: ignore[reportAttributeAccessIssue]
    assert KEY in known_secrets(config, {})
    assert KEY not in config.model_dump_json()  # the config holds where, never what


def test_item5_a_credential_read_from_the_environment(tmp_path: Path) -> None:
    config = _config(
        tmp_path,
        {
            "credentials": {"anthropic": {"env": "MY_ANTHROPIC"}},
            "providers": {"anthropic": {"credential": "anthropic"}},
        },
    )
    provider = create_provider("anthropic/claude-sonnet-4-6", config, {"MY_ANTHROPIC": KEY})
    assert provider._api_key == KEY  # pyright: ignore[reportAttributeAccessIssue]
    with pytest.raises(ConfigError, match="credential 'anthropic': the variable MY_ANTHROPIC"):
        create_provider("anthropic/claude-sonnet-4-6", config, {})


def test_item5_bad_credential_references_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="names 'nope', which is not in credentials"):
        _config(tmp_path, {"providers": {"openai": {"credential": "nope"}}})
    with pytest.raises(ConfigError, match="exactly one of env, file or keyring"):
        _config(tmp_path, {"credentials": {"x": {"env": "A", "file": "b"}}})
    keyring = _config(tmp_path, {"credentials": {"k": {"keyring": "shard/openai"}}})
    with pytest.raises(ConfigError, match="keyring credentials are not supported yet"):
        resolve_credential(keyring, "k", {})
    missing = _config(tmp_path, {"credentials": {"f": {"file": str(tmp_path / "absent")}}})
    with pytest.raises(ConfigError, match="credential 'f': cannot read"):
        resolve_credential(missing, "f", {})


def test_item4_tools_env_passthrough_is_a_config_key(tmp_path: Path) -> None:
    config = _config(tmp_path, {"tools": {"env_passthrough": ["MY_TOKEN"]}})
    assert config.tools.env_passthrough == ["MY_TOKEN"]
