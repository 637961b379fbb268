"""Todos (L3): the `todo_write` tool, the agent's visible plan as a list replaced whole each
call, kept in the log as a `TodosCheckpoint` and shown in `/status`."""

from __future__ import annotations

from shard_core.capabilities.todos.capability import TodosCapability, checklist, latest_todos

__all__ = ["TodosCapability", "checklist", "latest_todos"]
