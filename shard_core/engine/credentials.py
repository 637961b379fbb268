"""Named credentials: `config.json` says where a secret is kept, never the secret itself.

    {"credentials": {"openai": {"env": "OPENAI_API_KEY"}, "work": {"file": "~/.secrets/openai"}},
     "providers": {"openai": {"credential": "work"}}}

A credential is read when a provider (later an MCP server) is built and handed straight to it;
its value goes into no manifest, session entry or event, and the session redacts it from tool
output like any secret of the environment. `keyring` may be declared but is not supported yet:
using it is a ConfigError that says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from shard_core.engine.config import CredentialConfig, ShardConfig
from shard_core.types.errors import ConfigError
from shard_core.types.secrets import KnownSecrets


def resolve_credential(config: ShardConfig, name: str, env: Mapping[str, str]) -> str:
    """The secret the credential `name` refers to; a clear ConfigError when it cannot be read."""
    entry = config.credentials.get(name)
    if entry is None:
        known = ", ".join(sorted(config.credentials)) or "none"
        raise ConfigError(f"no credential named {name!r} in config.json (known: {known})")
    return _read(name, entry, env)


def _read(name: str, entry: CredentialConfig, env: Mapping[str, str]) -> str:
    if entry.env:
        value = env.get(entry.env, "").strip()
        if not value:
            raise ConfigError(f"credential {name!r}: the variable {entry.env} is not set")
        return value
    if entry.file:
        path = Path(entry.file).expanduser()
        try:
            value = path.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ConfigError(
                f"credential {name!r}: cannot read {path}: {exc.strerror or exc}"
            ) from None
        if not value:
            raise ConfigError(f"credential {name!r}: {path} is empty")
        return value
    raise ConfigError(
        f"credential {name!r}: keyring credentials are not supported yet; "
        'use {"env": "VARIABLE"} or {"file": "path"}'
    )


def known_secrets(config: ShardConfig, env: Mapping[str, str]) -> KnownSecrets:
    """Every secret this agent could hold: the environment's, every credential that can be read,
    and inline provider keys — the values a session redacts from what it logs."""
    secrets = KnownSecrets.from_environment(env)
    for name, entry in config.credentials.items():
        try:
            secrets.add(_read(name, entry, env))
        except ConfigError:
            continue  # unreadable now: nothing of it can leak either
    secrets.add(*(p.api_key for p in config.providers.values()))
    return secrets
