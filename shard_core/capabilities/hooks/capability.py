"""The hooks capability, installed through the ExtensionApi like any extension.

    hooks = HooksCapability(cwd, trusted=opts.trust_project)
    await host.install("shard.hooks", hooks)

It reads `"hooks"` from config.json (`api.settings`) and, trusted, the project's
`.shard/settings.json`; subscribes its PreToolUse hooks to `before_tool` and its PostToolUse
hooks to `after_tool` (`shard_core.engine.hook_points`), and registers `/hooks`.

Fail closed: a PreToolUse hook can block a call (exit 2, `decision: block`,
`permissionDecision: deny`) or change its input (`updatedInput`, which the gate then judges);
its `allow` or `ask` leave the decision to the gate, and a hook that crashes, times out or
prints garbage decides nothing, so the gate asks or denies as it would have.
"""

from __future__ import annotations

import logging
from collections import deque
from pathlib import Path
from typing import Any, cast

from shard_core.capabilities.hooks.config import HookConfig, load_hooks
from shard_core.capabilities.hooks.runner import HookRun, run_hook
from shard_core.contracts import ExtensionApi
from shard_core.engine.hook_points import AFTER_TOOL, BEFORE_TOOL, ToolCheck, ToolDone, ToolVerdict
from shard_core.types import JsonObject

log = logging.getLogger("shard.hooks")

HOOKS_HELP = "the command hooks configured (config.json, trusted project settings) and recent runs"


class HooksCapability:
    def __init__(self, cwd: Path, *, trusted: bool) -> None:
        self.cwd = cwd.resolve()
        self.trusted = trusted
        self.config = HookConfig()
        self.runs: deque[dict[str, Any]] = deque(maxlen=50)
        """recent runs: event, command, exit, duration_ms, decision"""

    @property
    def diagnostics(self) -> list[str]:
        return self.config.diagnostics

    def __call__(self, api: ExtensionApi) -> None:
        self.config = load_hooks(api.settings("hooks"), cwd=self.cwd, trusted=self.trusted)
        api.on(BEFORE_TOOL, self.before_tool)
        api.on(AFTER_TOOL, self.after_tool)
        api.register_command("hooks", HOOKS_HELP, self.command)

    def payload(self, event: str, check: ToolCheck, **extra: Any) -> dict[str, Any]:
        return {
            "session_id": check.session_id,
            "transcript_path": check.transcript_path,
            "cwd": check.cwd,
            "hook_event_name": event,
            "tool_name": check.tool,
            "tool_input": check.input,
            **extra,
        }

    async def before_tool(self, check: ToolCheck) -> ToolVerdict | None:
        current: JsonObject = check.input
        updated = False
        for hook in self.config.for_event("PreToolUse", check.tool):
            payload = self.payload("PreToolUse", check)
            payload["tool_input"] = current
            run = await self._run(hook.event, hook, payload)
            decision = run.specific.get("permissionDecision")
            if run.blocked or decision == "deny":
                self._record(run, "deny")
                return ToolVerdict(deny=True, reason=run.reason)
            changed = run.specific.get("updatedInput")
            if not run.failed and isinstance(changed, dict):
                current, updated = cast(JsonObject, changed), True
                self._record(run, "updated_input")
            else:
                self._record(run, "error" if run.failed else str(decision or "none"))
        return ToolVerdict(updated_input=current if updated else None)

    async def after_tool(self, done: ToolDone) -> str | None:
        texts: list[str] = []
        for hook in self.config.for_event("PostToolUse", done.check.tool):
            response = {"text": done.result.text, "is_error": done.result.is_error}
            payload = self.payload("PostToolUse", done.check, tool_response=response)
            run = await self._run(hook.event, hook, payload)
            context = run.specific.get("additionalContext")
            if isinstance(context, str) and context.strip():
                texts.append(context.strip())
            if run.blocked and run.reason:
                texts.append(run.reason)
            self._record(run, "block" if run.blocked else "error" if run.failed else "none")
        return "\n\n".join(texts) or None

    async def _run(self, event: str, hook: Any, payload: dict[str, Any]) -> HookRun:
        try:
            return await run_hook(hook, payload, self.cwd)
        except OSError as exc:  # could not start: an error that decides nothing
            return HookRun(hook, None, "", f"could not start: {exc}", 0.0)

    def _record(self, run: HookRun, decision: str) -> None:
        entry = {
            "event": run.hook.event,
            "command": run.hook.command,
            "exit": run.exit_code,
            "timed_out": run.timed_out,
            "duration_ms": run.duration_ms,
            "decision": decision,
        }
        self.runs.append(entry)
        log.info("hook run %s", entry)

    def command(self, words: list[str]) -> str:
        lines = ["**Hooks**", ""]
        if not self.config.hooks:
            lines.append('none configured (`"hooks"` in config.json, see docs/HOOKS.md)')
        for h in self.config.hooks:
            lines.append(
                f"- {h.event} `{h.matcher or '*'}`: `{h.command}` ({h.timeout:g} s, {h.source})"
            )
        for d in self.config.diagnostics:
            lines.append(f"- note: {d}")
        if self.runs:
            lines += ["", "**Recent runs**", ""]
            for r in self.runs:
                lines.append(
                    f"- {r['event']} `{r['command']}`: exit {r['exit']}, "
                    f"{r['duration_ms']} ms, {r['decision']}"
                )
        return "\n".join(lines)
