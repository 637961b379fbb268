"""Which model a new agent gets when nobody names one: one answer for every way an agent is made.

The sidebar's New agent form and the REST create, `%shard new`, a Launcher notebook's kernel and
a subagent all ask `default_model` (and an ACP session can): first `model` in config.json, then
the server's `KERNEL_SHARD_MODEL`, then the default model of a provider whose key or base URL
is set (Anthropic, then OpenAI), else no model — the agent then answers every prompt with how
to configure one (the scripted demo plays only where it is named: its replies are written for
its own project). `source` and `why` say which of these applied, so a form can show it before
anything is created.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from shard_core.engine.config import ShardConfig, load_config
from shard_core.providers.models import DEMO_MODEL, NO_MODEL, resolve_default_model
from shard_core.types.errors import ConfigError

Source = Literal["config", "server", "provider", "none"]
SERVER_MODEL = "KERNEL_SHARD_MODEL"


@dataclass(frozen=True)
class ModelDefault:
    model: str
    """a model string (`openai/gpt-4o-mini`), or `none` when nothing is configured"""
    source: Source
    why: str
    """in words, for a person: "config.json", "the server's KERNEL_SHARD_MODEL", …"""

    @property
    def demo(self) -> bool:
        return self.model.strip() == DEMO_MODEL

    @property
    def configured(self) -> bool:
        return self.source != "none"

    def to_json(self) -> dict[str, object]:
        return {"model": self.model, "source": self.source, "why": self.why, "demo": self.demo}


def default_model(
    env: Mapping[str, str] | None = None, config: ShardConfig | None = None
) -> ModelDefault:
    """The model a new agent gets from `config` (read from config.json when not given) and the
    server's environment `env` (os.environ when not given). A broken config.json is skipped
    with its problem in `why`, never fatal: the next source decides."""
    from shard_kernel.registrations import provider_specs  # runs extensions: when asked

    env = os.environ if env is None else env
    problem = ""
    if config is None:
        try:
            config = load_config()
        except ConfigError as exc:
            config, problem = ShardConfig(), f" (config.json skipped: {exc})"
    if config.model and config.model.strip():
        return ModelDefault(config.model.strip(), "config", "model in config.json")
    server = env.get(SERVER_MODEL, "").strip()
    if server:
        return ModelDefault(server, "server", f"the server's {SERVER_MODEL}{problem}")
    model, _ = resolve_default_model(config, env, provider_specs())
    if model != NO_MODEL:
        prefix = model.partition("/")[0]
        return ModelDefault(model, "provider", f"the {prefix} key or base URL is set{problem}")
    return ModelDefault(NO_MODEL, "none", f"no model is configured{problem}")
