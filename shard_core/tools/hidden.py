"""The paths a sandboxed command must not see: credentials, Shard's state and config, the Jupyter
runtime dir (the server's token), host sockets, and other agents' workspaces."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import cast

# Below HOME: keys and tokens other programs keep.
HOME_SECRETS = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".config/gcloud",
    ".config/gh",
    ".netrc",
    ".git-credentials",
    ".pypirc",
    ".npmrc",
)
# Per-user runtime sockets (D-Bus, keyrings, Jupyter with platform dirs) and the Docker socket:
# a read-only mount does not stop connect() on a socket file.
HOST_SOCKETS = ("/run/user", "/run/docker.sock", "/var/run/docker.sock")


def hidden_paths(
    environs: Iterable[Mapping[str, str]], agent_id: str, roots: Sequence[Path]
) -> list[Path]:
    """Every existing path to hide, resolved, once. Each environment (Shard's own and the
    command's, whose HOME may differ) contributes its HOME, SHARD_HOME, config and Jupyter dirs."""
    candidates: list[Path] = [Path(p) for p in HOST_SOCKETS]
    for env in environs:
        home = Path(env.get("HOME") or Path.home())
        candidates += [home / name for name in HOME_SECRETS]
        candidates += [shard_home(env, home), shard_config_dir(env, home)]
        candidates += jupyter_runtime_dirs(env, home)
        candidates += other_workspaces(shard_home(env, home), agent_id, roots)
    found: list[Path] = []
    for path in candidates:
        real = Path(os.path.realpath(path))
        if real not in found and os.path.lexists(real):
            found.append(real)
    return found


def shard_home(env: Mapping[str, str], home: Path) -> Path:
    """As `shard_core.engine.state.shard_home`, for a given environment."""
    raw = env.get("SHARD_HOME")
    return Path(raw).expanduser() if raw else home / ".shard"


def shard_config_dir(env: Mapping[str, str], home: Path) -> Path:
    """As `shard_core.engine.state.config_dir`: config.json may hold provider keys."""
    raw = env.get("XDG_CONFIG_HOME")
    return (Path(raw).expanduser() if raw else home / ".config") / "shard"


def jupyter_runtime_dirs(env: Mapping[str, str], home: Path) -> list[Path]:
    """Where `jupyter_core.paths.jupyter_runtime_dir()` puts server files (with their token), on
    Linux, with and without JUPYTER_PLATFORM_DIRS — shard_core may not import jupyter_core."""
    if env.get("JUPYTER_RUNTIME_DIR"):
        return [Path(env["JUPYTER_RUNTIME_DIR"])]
    if env.get("JUPYTER_DATA_DIR"):
        data = Path(env["JUPYTER_DATA_DIR"])
    else:
        data = Path(env.get("XDG_DATA_HOME") or home / ".local" / "share") / "jupyter"
    found = [data / "runtime"]
    if env.get("XDG_RUNTIME_DIR"):
        found.append(Path(env["XDG_RUNTIME_DIR"]) / "jupyter")
    return found


def other_workspaces(home: Path, agent_id: str, roots: Sequence[Path]) -> list[Path]:
    """The `cwd` of every other agent the gateway keeps a manifest for, unless it is one of ours,
    holds one of ours or lies inside one of ours."""
    own = [Path(os.path.realpath(r)) for r in roots]
    found: list[Path] = []
    for manifest in sorted((home / "agents").glob("agent-*/manifest.json")):
        if manifest.parent.name == agent_id:
            continue
        cwd = _manifest_cwd(manifest)
        if cwd is None:
            continue
        real = Path(os.path.realpath(cwd))
        if not any(real.is_relative_to(r) or r.is_relative_to(real) for r in own):
            found.append(real)
    return found


def _manifest_cwd(path: Path) -> str | None:
    try:
        data: object = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    cwd = cast("dict[str, object]", data).get("cwd") if isinstance(data, dict) else None
    return cwd if isinstance(cwd, str) and cwd else None
