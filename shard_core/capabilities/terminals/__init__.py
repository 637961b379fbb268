"""Terminals the agent keeps open across turns: a shell or a program on a pseudo-terminal."""

from shard_core.capabilities.terminals.extension import TerminalsCapability

__all__ = ["TerminalsCapability"]
