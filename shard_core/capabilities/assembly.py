"""What an agent's config gives the capabilities it assembles: the sandbox policy bash, the
terminals and the notebook kernel apply, the settings `api.settings` answers from, and the
credential files every command must not see."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shard_core.engine.config import SandboxConfig, ShardConfig
from shard_core.tools.sandbox import SandboxPolicy


def sandbox_policy(box: SandboxConfig, secret_files: Sequence[str] = ()) -> SandboxPolicy:
    """config.json's `sandbox` section as the policy a Sandbox applies (bash, the kernel).
    `secret_files`: files to hide from every command (`credential_files(config)`)."""
    return SandboxPolicy(
        box.mode,
        box.network,
        tuple(box.extra_ro),
        tuple(box.extra_rw),
        allow_unix_sockets=tuple(box.allow_unix_sockets),
        secret_files=tuple(secret_files),
    )


def extension_settings(config: ShardConfig) -> dict[str, Any]:
    """What `api.settings` answers from: the config without providers, and of the credentials
    only the files they are kept in (paths a sandbox hides; no value, no variable name)."""
    settings = config.model_dump(mode="json", exclude={"providers", "credentials"})
    kept = {name: {"file": c.file} for name, c in config.credentials.items() if c.file}
    settings["credentials"] = kept
    return settings


def credential_files(config: ShardConfig) -> list[str]:
    """The files `credentials.<name>.file` entries name: hidden in the sandbox."""
    return [c.file for c in config.credentials.values() if c.file]
