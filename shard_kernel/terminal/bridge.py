"""TerminalBridge: the UiBridge for `shard run` — asks on the terminal, one question at a time."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import TextIO

from shard_core.contracts import PermissionAnswer, PermissionPrompt
from shard_core.contracts.ui import QuestionAnswer, QuestionPrompt, question_problem
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

    async def question(self, prompt: QuestionPrompt) -> QuestionAnswer | None:
        """An ask_user question: numbers pick choices (comma-separated when it takes several),
        other text is the person's own words when it allows them; asked again until the answer
        fits; an empty line (or closed stdin) leaves it unanswered."""
        listing = "\n".join(f"  {n}. {c}" for n, c in enumerate(prompt.choices, 1))
        kind = "numbers, comma-separated" if prompt.multi else "a number"
        other = ", or your own words" if prompt.allow_other else ""
        ask = f"\n? {prompt.question}\n{listing}\n  answer ({kind}{other}; empty: no answer): "
        while True:
            raw = await self._ask(ask)
            if not raw:
                return None
            values = picked(raw, prompt.choices, prompt.multi)
            problem = question_problem(prompt, values)
            if problem is None:
                return QuestionAnswer(tuple(values), "terminal")
            ask = f"  {problem}; answer again: "

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


def picked(line: str, choices: tuple[str, ...] | list[str], multi: bool) -> list[str]:
    """The choices a typed line names: numbers pick choices, other text stays as typed."""
    parts = [p.strip() for p in line.split(",")] if multi else [line.strip()]
    return [choices[int(p) - 1] if p.isdigit() and 0 < int(p) <= len(choices) else p for p in parts]
