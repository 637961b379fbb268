"""Questions (L3): the `ask_user` tool, a structured question to the person (choices, several
or one, their own words when allowed), asked through `api.ui` like any extension's question."""

from __future__ import annotations

from shard_core.capabilities.questions.capability import AskUserTool, QuestionsCapability

__all__ = ["AskUserTool", "QuestionsCapability"]
