"""Command hooks in Claude Code's shape (`docs/HOOKS.md`): config, runner, capability."""

from shard_core.capabilities.hooks.capability import HooksCapability
from shard_core.capabilities.hooks.config import HookCommand, HookConfig, load_hooks

__all__ = ["HookCommand", "HookConfig", "HooksCapability", "load_hooks"]
