"""UiProxy: the `api.ui` extensions hold, delegating to whichever surface is bound now."""

from __future__ import annotations

from shard_core.contracts.ui import (
    PermissionAnswer,
    PermissionPrompt,
    QuestionAnswer,
    QuestionBridge,
    QuestionPrompt,
    UiBridge,
)


class UiProxy:
    """With no surface bound, questions get no answer (None) and permission asks are denied."""

    def __init__(self) -> None:
        self._bridge: UiBridge | None = None

    def bind(self, bridge: UiBridge | None) -> None:
        self._bridge = bridge

    async def ask_permission(self, prompt: PermissionPrompt) -> PermissionAnswer:
        if self._bridge is None:
            return PermissionAnswer("deny", "headless", source="headless", reason="no one to ask")
        return await self._bridge.ask_permission(prompt)

    async def select(self, title: str, options: list[str], message: str = "") -> str | None:
        return await self._bridge.select(title, options, message) if self._bridge else None

    async def confirm(self, title: str, message: str = "") -> bool | None:
        return await self._bridge.confirm(title, message) if self._bridge else None

    async def input(self, title: str, message: str = "", default: str | None = None) -> str | None:
        return await self._bridge.input(title, message, default) if self._bridge else None

    async def question(self, prompt: QuestionPrompt) -> QuestionAnswer | None:
        """A structured question, when the bound surface can put one (else no answer)."""
        if isinstance(self._bridge, QuestionBridge):
            return await self._bridge.question(prompt)
        return None

    async def notify(self, title: str, message: str = "") -> None:
        if self._bridge is not None:
            await self._bridge.notify(title, message)
