"""MCP server configuration in the shape users already have, and `${VAR}` expansion.

User servers come from `mcpServers` in Shard's config.json; project servers from the
workspace's `.mcp.json` (Claude Code's format), and only with trust, because starting one runs
code. Both read:

    {"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"], "env": {}},
                    "docs": {"type": "http", "url": "https://…/mcp",
                             "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}}}}

`${VAR}`, `${VAR:-default}` and `${credential:NAME}` (a named credential of config.json) are
expanded in command, args, env, cwd, url and headers when the server starts. The expanded
values go only to the transport: configs, diagnostics and errors name the variable, never
its value. Shard's own keys: `startupTimeout` and `timeout` (seconds), `eager`, `disabled`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

from shard_core.types.errors import ConfigError

PROJECT_FILE = ".mcp.json"
DEFAULT_STARTUP_TIMEOUT = 30.0
DEFAULT_CALL_TIMEOUT = 600.0
HTTP_TYPES = frozenset({"http", "streamable-http", "streamable_http", "streamableHttp"})
_KNOWN_KEYS = frozenset(
    {"type", "command", "args", "env", "cwd", "url", "headers", "startupTimeout", "timeout",
     "eager", "disabled", "description"}
)  # fmt: skip
_VAR = re.compile(
    r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*|credential:[A-Za-z0-9_.-]+)(?::-(?P<default>[^}]*))?\}"
)

Origin = Literal["user", "project"]
Resolve = Callable[[str], str]
"""`resolve(name)`: a named credential's secret, or a ConfigError saying why not."""


@dataclass(frozen=True)
class ServerConfig:
    """One configured server, unexpanded (safe to show)."""

    name: str
    origin: Origin
    type: str
    raw: Mapping[str, Any] = field(repr=False)
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT
    call_timeout: float = DEFAULT_CALL_TIMEOUT
    eager: bool = False

    @property
    def target(self) -> str:
        """What it runs or where it lives, as configured (variables unexpanded)."""
        if self.type == "stdio":
            return " ".join([str(self.raw.get("command", "")), *map(str, self.raw.get("args", []))])
        return str(self.raw.get("url", self.type))


@dataclass
class ServerConfigs:
    servers: dict[str, ServerConfig] = field(default_factory=dict[str, ServerConfig])
    diagnostics: list[str] = field(default_factory=list[str])


def load_servers(
    user: Mapping[str, Any], cwd: Path, *, trusted: bool, project_file: str = PROJECT_FILE
) -> ServerConfigs:
    """User servers, then the project's `.mcp.json` (only when trusted; it wins a name clash)."""
    found = ServerConfigs()
    _add_all(found, user, "user", "config.json mcpServers")
    path = cwd / project_file
    if not path.is_file():
        return found
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        found.diagnostics.append(f"{path}: not read: {exc}")
        return found
    servers: Any = cast(dict[str, Any], data).get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        found.diagnostics.append(f'{path}: expected {{"mcpServers": {{name: server}}}}')
        return found
    if not trusted:
        names = ", ".join(sorted(str(n) for n in servers)) or "none"  # pyright: ignore[reportUnknownVariableType,reportUnknownArgumentType]
        found.diagnostics.append(
            f"{path}: project MCP servers ({names}) not started: starting them runs code from "
            "the project, which needs --trust-project"
        )
        return found
    _add_all(found, servers, "project", str(path))  # pyright: ignore[reportUnknownArgumentType]
    return found


def _add_all(found: ServerConfigs, servers: Mapping[str, Any], origin: Origin, where: str) -> None:
    for name, raw in servers.items():  # pyright: ignore[reportUnknownVariableType]
        try:
            config = parse_server(str(name), raw, origin)
        except ConfigError as exc:
            found.diagnostics.append(f"{where}: {exc}")
            continue
        if config is None:
            continue
        if name in found.servers:
            found.diagnostics.append(f"{where}: server {name!r} replaces the user's server")
        found.servers[str(name)] = config


def parse_server(name: str, raw: object, origin: Origin) -> ServerConfig | None:
    """One entry; None when it is `disabled`. A ConfigError names the server and the field."""
    if not isinstance(raw, dict):
        raise ConfigError(f"server {name!r}: expected an object")
    items = cast(dict[Any, Any], raw).items()
    entry: dict[str, Any] = {str(k): v for k, v in items}
    if entry.get("disabled") is True:
        return None
    kind = entry.get("type") or (
        "stdio" if "command" in entry else "http" if "url" in entry else ""
    )
    if not isinstance(kind, str) or not kind:
        raise ConfigError(f"server {name!r}: give a command (stdio) or a url (http)")
    kind = "http" if kind in HTTP_TYPES else kind
    if kind == "stdio":
        _need_str(name, entry, "command")
        _need_list(name, entry, "args")
        _need_map(name, entry, "env")
    elif kind in ("http", "sse"):
        _need_str(name, entry, "url")
        _need_map(name, entry, "headers")
    return ServerConfig(
        name=name,
        origin=origin,
        type=kind,
        raw=entry,
        startup_timeout=_seconds(name, entry, "startupTimeout", DEFAULT_STARTUP_TIMEOUT),
        call_timeout=_seconds(name, entry, "timeout", DEFAULT_CALL_TIMEOUT),
        eager=entry.get("eager") is True,
    )


def unknown_keys(config: ServerConfig) -> list[str]:
    return sorted(k for k in config.raw if k not in _KNOWN_KEYS)


def _need_str(name: str, entry: dict[str, Any], key: str) -> None:
    if not isinstance(entry.get(key), str) or not entry[key]:
        raise ConfigError(f"server {name!r}: {key!r} must be a non-empty string")


def _need_list(name: str, entry: dict[str, Any], key: str) -> None:
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):  # pyright: ignore[reportUnknownVariableType]
        raise ConfigError(f"server {name!r}: {key!r} must be a list of strings")


def _need_map(name: str, entry: dict[str, Any], key: str) -> None:
    value = entry.get(key, {})
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str)
        for k, v in value.items()  # pyright: ignore[reportUnknownVariableType]
    ):
        raise ConfigError(f"server {name!r}: {key!r} must map names to strings")


def _seconds(name: str, entry: dict[str, Any], key: str, default: float) -> float:
    value = entry.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 86_400:
        raise ConfigError(f"server {name!r}: {key!r} must be seconds in (0, 86400]")
    return float(value)


# -- expansion -------------------------------------------------------------------------------


def expand(text: str, env: Mapping[str, str], resolve: Resolve) -> str:
    """`${VAR}`, `${VAR:-default}`, `${credential:NAME}` → values. A missing variable without a
    default is a ConfigError naming it (never any value)."""

    def one(match: re.Match[str]) -> str:
        name, default = match["name"], match["default"]
        if name.startswith("credential:"):
            return resolve(name.removeprefix("credential:"))
        value = env.get(name)
        if value is None or value == "":
            if default is not None:
                return default
            raise ConfigError(f"${{{name}}} is not set")
        return value

    return _VAR.sub(one, text)


@dataclass(frozen=True)
class Expanded:
    """The values the transport gets. Never logged, never shown."""

    command: str = ""
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict[str, str])
    cwd: str | None = None
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict[str, str])
    extra: dict[str, Any] = field(default_factory=dict[str, Any])


def expand_server(config: ServerConfig, env: Mapping[str, str], resolve: Resolve) -> Expanded:
    """Expand every string field; a ConfigError names the server and the field."""
    raw = config.raw

    def ex(value: object, where: str) -> str:
        try:
            return expand(str(value), env, resolve)
        except ConfigError as exc:
            raise ConfigError(f"server {config.name!r}: {where}: {exc}") from None

    def ex_map(key: str) -> dict[str, str]:
        value: dict[str, Any] = raw.get(key) or {}
        return {k: ex(v, f"{key}.{k}") for k, v in value.items()}

    cwd = raw.get("cwd")
    return Expanded(
        command=ex(raw.get("command", ""), "command"),
        args=tuple(ex(a, f"args[{i}]") for i, a in enumerate(raw.get("args") or [])),
        env=ex_map("env"),
        cwd=ex(cwd, "cwd") if isinstance(cwd, str) else None,
        url=ex(raw.get("url", ""), "url"),
        headers=ex_map("headers"),
        extra={k: v for k, v in raw.items() if k not in _KNOWN_KEYS},
    )
