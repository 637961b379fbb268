"""ShardConfig: the human-edited `config.json` — providers, credentials, permissions, tools,
compaction, prices."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from shard_core.engine.state import config_dir
from shard_core.types.errors import ConfigError
from shard_core.types.usage import Price as Price  # config.json `prices`; defined by Usage


class _Config(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class PermissionsConfig(_Config):
    allow: list[str] = Field(default_factory=list[str])
    ask: list[str] = Field(default_factory=list[str])
    deny: list[str] = Field(default_factory=list[str])
    headless_policy: Literal["deny", "allow_if_rule_matches", "queue"] = "deny"
    timeout: float = Field(default=60.0, gt=0, le=86_400, allow_inf_nan=False)


class CompactionConfig(_Config):
    threshold: float = Field(default=0.8, gt=0, le=1)
    keep_recent_tokens: int = Field(default=20_000, ge=0)


class SandboxConfig(_Config):
    """The OS sandbox for commands the agent runs (see shard_core.tools.sandbox).

    mode: `bwrap` (default) sandboxes when bubblewrap works here and otherwise warns once and
    relies on the permission rules alone; `required` refuses to run commands without it; `off`.
    network: whether sandboxed commands may use the network (default: no).
    extra_ro / extra_rw: more paths to show read-only (even if hidden: HOME is, but for its
    toolchain folders) or to make writable.
    allow_unix_sockets: Unix sockets outside the workspace a command may connect to (all others
    are hidden), e.g. the ssh agent's, with `SSH_AUTH_SOCK` in `tools.env_passthrough`.
    kernel: `on` (default) starts the workspace kernel (python_exec, notebook_run) inside the
    same sandbox as commands; `off` starts it as the user's own process, with the user's files
    and network, and through the Jupyter server when there is one (listed in Lab).
    """

    mode: Literal["bwrap", "off", "required"] = "bwrap"
    network: bool = False
    extra_ro: list[str] = Field(default_factory=list[str])
    extra_rw: list[str] = Field(default_factory=list[str])
    kernel: Literal["on", "off"] = "on"
    allow_unix_sockets: list[str] = Field(default_factory=list[str])


class CredentialConfig(_Config):
    """Where a named secret is kept — never the secret itself. Exactly one of `env` (a variable
    name), `file` (a path, `~` allowed; its content, stripped) or `keyring` (declared for
    later: not supported yet, and saying so when used)."""

    env: str | None = None
    file: str | None = None
    keyring: str | None = None

    @model_validator(mode="after")
    def _one_source(self) -> CredentialConfig:
        given = [k for k in ("env", "file", "keyring") if getattr(self, k)]
        if len(given) != 1:
            raise ValueError("a credential names exactly one of env, file or keyring")
        return self


class ProviderConfig(_Config):
    api_key: str | None = None
    """An inline key still works (SDK callers build configs in code); in config.json prefer
    `credential`, which names an entry of `credentials` instead of holding the key."""
    credential: str | None = None
    base_url: str | None = None


class ToolsConfig(_Config):
    env_passthrough: list[str] = Field(default_factory=list[str])
    """Variables commands may see although they look like secrets (all others are removed)."""


class SubagentsConfig(_Config):
    names: list[str] = Field(default_factory=list[str])
    """Friendly names for subagents, before the bundled pool (invalid entries are dropped)."""
    concurrency: int = Field(default=4, ge=1, le=32)
    """How many children of one parallel job run at once."""


class TitlesConfig(_Config):
    model: bool = False
    """After the first turn, ask the provider for the session's title (one small request);
    off: the title is the first prompt's first line, and no model is called for it."""


class CompletionConfig(_Config):
    """Inline completion in Lab editors (off until a person enables Shard's provider in the
    Inline Completer settings)."""

    model: str | None = None
    """the model that completes (a small local one, `openai/qwen2.5-coder@http://…/v1`);
    unset: the model a new agent gets"""
    max_tokens: int = Field(default=256, ge=1, le=4096)


class CheckpointsConfig(_Config):
    """Files kept before tools change them (the checkpoints capability: rewind, review)."""

    enabled: bool = True
    max_file_bytes: int = Field(default=16 * 1024 * 1024, ge=1)
    """a file larger than this is not kept: a rewind names it instead of restoring it"""
    max_scan_files: int = Field(default=20_000, ge=1)
    """the most files a workspace scan (after a shell command) compares"""


class AskUserConfig(_Config):
    headless: Literal["no_one", "first_choice"] = "no_one"
    """what `ask_user` gets when no one answers (headless, or no answer in time): `no_one`
    tells the model there is no one to ask; `first_choice` answers with the first choice"""


class NotificationsConfig(_Config):
    idle_seconds: float = Field(default=60, ge=0)
    """after how long a wait for a person (the next prompt, an answer to a question) the
    Notification hooks get `idle_prompt` (`docs/HOOKS.md`); 0: never"""


class GoalConfig(_Config):
    """`goal.continue`: at a turn's end, with a goal active and not reported met, the agent
    goes on with another turn until it calls `goal_report` or a bound is hit. The bounds count
    from the person's prompt, its own turn included; a null bound is not checked."""

    continue_: bool = Field(default=False, alias="continue")
    max_turns: int = Field(default=10, ge=1, le=1000)
    max_tokens: int | None = Field(default=None, ge=1)
    """input (cached included) plus output tokens of the prompt's turns together"""
    max_cost_usd: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    max_seconds: float | None = Field(default=3600.0, gt=0, allow_inf_nan=False)


class WebSearchConfig(_Config):
    provider: str | None = None
    """`brave`, `tavily`, `searxng`, `offline`, or an extension's search provider; unset: no
    `web_search` tool."""
    credential: str | None = None
    """the named credential holding the API key (default: BRAVE_API_KEY / TAVILY_API_KEY)"""
    url: str | None = None
    """the provider's base URL: a SearXNG instance, or another endpoint for a service"""
    folder: str | None = None
    """the offline provider's folder of documents"""
    max_results: int = Field(default=8, ge=1, le=20)


class WebFetchConfig(_Config):
    max_bytes: int = Field(default=10_000_000, ge=1_000, le=200_000_000)
    timeout: float = Field(default=30.0, gt=0, le=600, allow_inf_nan=False)
    max_redirects: int = Field(default=5, ge=0, le=20)
    max_chars: int = Field(default=40_000, ge=1_000, le=1_000_000)
    """the most page text one `web_fetch` result carries (`offset` reads on)"""


class WebConfig(_Config):
    """`web_fetch` / `web_search`: where they may go and how far. Domains cover their
    subdomains; `host:port` names one port. A private or local address is reached only when
    its host is named here exactly."""

    allowed_domains: list[str] = Field(default_factory=list[str])
    denied_domains: list[str] = Field(default_factory=list[str])
    search: WebSearchConfig = Field(default_factory=WebSearchConfig)
    fetch: WebFetchConfig = Field(default_factory=WebFetchConfig)


class ShardConfig(_Config):
    model: str | None = None
    providers: dict[str, ProviderConfig] = Field(default_factory=dict[str, ProviderConfig])
    credentials: dict[str, CredentialConfig] = Field(default_factory=dict[str, CredentialConfig])
    tools: ToolsConfig = Field(default_factory=ToolsConfig)
    permissions: PermissionsConfig = Field(default_factory=PermissionsConfig)
    compaction: CompactionConfig = Field(default_factory=CompactionConfig)
    sandbox: SandboxConfig = Field(default_factory=SandboxConfig)
    subagents: SubagentsConfig = Field(default_factory=SubagentsConfig)
    titles: TitlesConfig = Field(default_factory=TitlesConfig)
    checkpoints: CheckpointsConfig = Field(default_factory=CheckpointsConfig)
    completion: CompletionConfig = Field(default_factory=CompletionConfig)
    goal: GoalConfig = Field(default_factory=GoalConfig)
    ask_user: AskUserConfig = Field(default_factory=AskUserConfig)
    web: WebConfig = Field(default_factory=WebConfig)
    prices: dict[str, Price] = Field(default_factory=dict[str, Price])
    context_windows: dict[str, int] = Field(default_factory=dict[str, int])
    mcp_servers: dict[str, dict[str, object]] = Field(
        default_factory=dict[str, dict[str, object]], alias="mcpServers"
    )
    hooks: dict[str, object] = Field(default_factory=dict[str, object])
    """command hooks in Claude Code's shape (`docs/HOOKS.md`), checked by the hooks capability"""
    notifications: NotificationsConfig = Field(default_factory=NotificationsConfig)
    max_stop_continuations: int = Field(default=5, ge=0)
    """how often a Stop hook may keep one turn going (`docs/HOOKS.md`)"""

    @model_validator(mode="after")
    def _known_credentials(self) -> ShardConfig:
        for name, provider in self.providers.items():
            if provider.credential and provider.credential not in self.credentials:
                known = ", ".join(sorted(self.credentials)) or "none"
                raise ValueError(
                    f"providers.{name}.credential names {provider.credential!r}, which is not "
                    f"in credentials (known: {known})"
                )
        credential = self.web.search.credential
        if credential and credential not in self.credentials:
            known = ", ".join(sorted(self.credentials)) or "none"
            raise ValueError(
                f"web.search.credential names {credential!r}, which is not in credentials "
                f"(known: {known})"
            )
        return self


def load_config(path: Path | None = None) -> ShardConfig:
    """Read config.json; a missing file is the defaults, a broken one a ConfigError."""
    path = path or config_dir() / "config.json"
    if not path.exists():
        return ShardConfig()
    try:
        return ShardConfig.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: invalid JSON at line {exc.lineno}: {exc.msg}") from exc
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        raise ConfigError(f"{path}: {problems}") from exc
