"""TerminalBridge: the UiBridge for `shard run` — asks on the terminal, one question at a time."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import TextIO

from shard_core.contracts import PermissionAnswer, PermissionPrompt
from shard_kernel.terminal.escape import terminal_safe

CHOICES = {
    "y": "allow",
    "yes": "allow",
    "a": "allow_always",
    "always": "allow_always",
    "w": "allow_always",
    "workspace": "allow_always",
}
WORKSPACE_CHOICES = frozenset({"w", "workspace"})
"""the answers that save the grant for every agent in this folder, not this agent only"""


class TerminalBridge:
    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stderr
        self._lock = asyncio.Lock()

    async def _ask(self, question: str) -> str:
        async with self._lock:
            self.out.write(terminal_safe(question))  # names, inputs, prompts: untrusted
            self.out.flush()
            try:
                return (await asyncio.to_thread(sys.stdin.readline)).strip()
            except (EOFError, OSError):
                return ""

    async def ask_permission(self, prompt: PermissionPrompt) -> PermissionAnswer:
        detail = json.dumps(prompt.input, ensure_ascii=False)[:500]
        always = (
            f" [a]lways for this agent / [w]orkspace ({prompt.suggested_rule})"
            if prompt.suggested_rule
            else ""
        )
        answer = await self._ask(
            f"\n? {prompt.prompt}\n  {prompt.tool} {detail}\n  [y]es{always} [n]o: "
        )
        decision = CHOICES.get(answer.lower(), "deny")
        scope = "workspace" if answer.lower() in WORKSPACE_CHOICES else "agent"
        if decision == "allow_always" and not prompt.suggested_rule:
            decision = "allow"
        return PermissionAnswer(
            decision,
            "terminal",
            rule=prompt.suggested_rule if decision == "allow_always" else None,
            reason=None if decision != "deny" else "denied at the terminal",
            scope=scope,
        )

    async def select(self, title: str, options: list[str], message: str = "") -> str | None:
        listing = "\n".join(f"  {i + 1}. {o}" for i, o in enumerate(options))
        raw = await self._ask(f"\n? {title}\n{message}\n{listing}\n  number: ")
        return options[int(raw) - 1] if raw.isdigit() and 0 < int(raw) <= len(options) else None

    async def confirm(self, title: str, message: str = "") -> bool | None:
        raw = (await self._ask(f"\n? {title} {message} [y/n]: ")).lower()
        return True if raw in ("y", "yes") else False if raw in ("n", "no") else None

    async def input(self, title: str, message: str = "", default: str | None = None) -> str | None:
        raw = await self._ask(f"\n? {title} {message}: ")
        return raw or default

    async def notify(self, title: str, message: str = "") -> None:
        print(terminal_safe(f"· {title} {message}"), file=self.out, flush=True)
