"""The paths a sandboxed command must not see: HOME and the credentials in it, the files config
credentials name, Shard's state and config, the Jupyter runtime dir (the server's token), host
Unix sockets, and other agents' workspaces."""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import cast

# Below HOME: keys and tokens other programs keep. HOME itself is hidden (an empty tmpfs) and
# only toolchain folders are shown again (`toolchains.py`); this list is what stays hidden
# inside those, or everywhere when HOME cannot be hidden (it is the workspace).
HOME_SECRETS = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".config/gcloud",
    ".config/gh",
    ".config/hub",
    ".config/git/credentials",
    ".config/containers/auth.json",
    ".config/anthropic",
    ".config/openai",
    ".config/rclone",
    ".config/op",
    ".netrc",
    ".git-credentials",
    ".pypirc",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".pgpass",
    ".my.cnf",
    ".vault-token",
    ".cache/huggingface/token",
    ".cache/huggingface/stored_tokens",
    ".huggingface/token",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".terraform.d/credentials.tfrc.json",
    ".terraformrc",
    ".local/share/keyrings",
    ".password-store",
    ".gem/credentials",
    ".m2/settings.xml",
    ".gradle/gradle.properties",
    ".pulumi/credentials.json",
    ".s3cfg",
    ".boto",
    ".databrickscfg",
)
# Where Unix sockets live: a read-only mount does not stop connect() on a socket file, so the
# folders are hidden (D-Bus, keyrings, Docker, databases, systemd, the user's runtime dir; /tmp
# is private anyway). Any other socket a host process is listening on is found in
# /proc/net/unix and covered one by one (`listening_sockets`).
SOCKET_FOLDERS = ("/run", "/var/run")
SOCKET_VARIABLES = ("SSH_AUTH_SOCK", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS")
NET_UNIX = Path("/proc/net/unix")


def hidden_paths(
    environs: Iterable[Mapping[str, str]],
    agent_id: str,
    roots: Sequence[Path],
    *,
    files: Iterable[str] = (),
    sockets: Iterable[Path] = (),
) -> list[Path]:
    """Every existing path to hide, resolved, once. Each environment (Shard's own and the
    command's, whose HOME may differ) contributes its HOME (wholly), its credentials, SHARD_HOME,
    config and Jupyter dirs and its agent sockets. `files`: more to hide (the files
    `credentials.<name>.file` names). `sockets`: allowed ones, not hidden one by one."""
    environs = list(environs)
    candidates: list[Path | str] = [Path(p) for p in SOCKET_FOLDERS]
    candidates += [Path(f).expanduser() for f in files]
    for env in environs:
        home = Path(env.get("HOME") or Path.home())
        candidates.append(home)
        candidates += [os.path.join(home, name) for name in HOME_SECRETS]
        candidates += [shard_home(env, home), shard_config_dir(env, home)]
        candidates += jupyter_runtime_dirs(env, home)
        candidates += socket_folders(env)
        candidates += other_workspaces(shard_home(env, home), agent_id, roots)
    real_roots = [Path(os.path.realpath(r)) for r in roots]
    allowed = {Path(os.path.realpath(s)) for s in sockets}
    for socket in listening_sockets():
        inside = any(socket.is_relative_to(r) for r in real_roots)
        if not inside and socket not in allowed:
            candidates.append(socket)
    found: list[Path] = []
    for path in dict.fromkeys(candidates):  # each environment names most of them again
        if not os.path.lexists(path):  # one call; most are missing (its real path is too)
            continue
        real = Path(os.path.realpath(path))
        if real != Path("/") and real not in found and os.path.lexists(real):
            found.append(real)
    return found


def socket_folders(env: Mapping[str, str]) -> list[Path]:
    """The runtime dir and the folder of each agent socket a variable names (`SSH_AUTH_SOCK`,
    any `*_SOCK`, `GPG_AGENT_INFO`'s path, a `unix:path=` D-Bus address)."""
    found: list[Path] = []
    if env.get("XDG_RUNTIME_DIR"):
        found.append(Path(env["XDG_RUNTIME_DIR"]))
    for name, value in env.items():
        if name in SOCKET_VARIABLES or name.endswith("_SOCK"):
            raw = value.removeprefix("unix:path=").split(",")[0].split(":")[0]
            if raw.startswith("/"):
                found.append(Path(raw).parent)
    return found


def listening_sockets() -> list[Path]:
    """The pathname Unix sockets bound in this network namespace (the host's), from
    /proc/net/unix: the last field of a line is the path (`@…` is abstract: no file)."""
    try:
        lines = NET_UNIX.read_text(encoding="utf-8", errors="replace").splitlines()[1:]
    except OSError:
        return []
    found: list[Path] = []
    for line in lines:
        fields = line.split(None, 7)
        if len(fields) == 8 and fields[7].startswith("/"):
            path = Path(fields[7])
            with contextlib.suppress(OSError):
                if stat.S_ISSOCK(path.lstat().st_mode) and path not in found:
                    found.append(path)
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
