"""The hooks capability, installed through the ExtensionApi like any extension.

    hooks = HooksCapability(cwd, trusted=opts.trust_project)
    await host.install("shard.hooks", hooks)

It reads `"hooks"` from config.json (`api.settings`) and, trusted, the project's
`.shard/settings.json`, and hangs each Claude Code event on the engine's seam for it, the same
`api.on` a Python extension uses: PreToolUse and PostToolUse on `before_tool` / `after_tool`,
UserPromptSubmit on `before_prompt`, Stop and SubagentStop on `before_stop`, PreCompact on
`before_compact`, SessionStart and SessionEnd on `session_start` / `session_end`,
PermissionRequest on `before_ask` (`shard_core.engine.hook_points`), Notification on the
`permission_request` and `ui_request` events and, after `notifications.idle_seconds` of waiting
for a person, as `idle_prompt` (`idle.py`). It registers `/hooks`.

Fail closed: a PreToolUse hook can block a call or change its input (which the gate then
judges), never allow it; a PermissionRequest hook answers only a question the gate would ask;
a hook that crashes, times out or prints garbage decides nothing.
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

from shard_core.capabilities.hooks.config import (
    HookCommand,
    HookConfig,
    claude_input,
    load_hooks,
    shard_input,
)
from shard_core.capabilities.hooks.idle import DEFAULT_SECONDS, PROMPT, IdleWatch
from shard_core.capabilities.hooks.runner import HookRun, run_hook
from shard_core.contracts import ExtensionApi
from shard_core.engine import hook_points as points
from shard_core.engine.hook_points import (
    AskCheck,
    CompactCheck,
    HookPlace,
    HookVerdict,
    PromptCheck,
    SessionCheck,
    StopCheck,
    ToolCheck,
    ToolDone,
)
from shard_core.protocol.events import (
    PermissionRequestEvent,
    PermissionResolvedEvent,
    TurnEndEvent,
    UiRequestEvent,
    UiResolvedEvent,
)
from shard_core.tools.sandbox import Sandbox
from shard_core.types import HookRunCheckpoint, JsonObject
from shard_core.types.session import HookDecision

log = logging.getLogger("shard.hooks")

HOOKS_HELP = "the command hooks configured (config.json, trusted project settings) and recent runs"


class HooksCapability:
    def __init__(self, cwd: Path, *, trusted: bool, sandbox: Sandbox | None = None) -> None:
        self.cwd = cwd.resolve()
        self.trusted = trusted
        self.sandbox = sandbox
        """the agent's command sandbox, which a hook runs in unless it says `sandbox: false`"""
        self.config = HookConfig()
        self.runs: deque[HookRunCheckpoint] = deque(maxlen=50)
        """the recent runs, for `/hooks`"""
        self.place: HookPlace | None = None
        """where the last hook point fired (a Notification comes from an event, not a point)"""
        self.idle = IdleWatch(DEFAULT_SECONDS, self.idle_prompt)

    @property
    def diagnostics(self) -> list[str]:
        return self.config.diagnostics

    def __call__(self, api: ExtensionApi) -> None:
        self.config = load_hooks(api.settings("hooks"), cwd=self.cwd, trusted=self.trusted)
        seconds = api.settings("notifications").get("idle_seconds", DEFAULT_SECONDS)
        self.idle.seconds = float(seconds) if isinstance(seconds, int | float) else 0.0
        api.on(points.BEFORE_PROMPT, self.before_prompt)
        api.on(points.BEFORE_TOOL, self.before_tool)
        api.on(points.AFTER_TOOL, self.after_tool)
        api.on(points.BEFORE_STOP, self.before_stop)
        api.on(points.BEFORE_COMPACT, self.before_compact)
        api.on(points.SESSION_START, self.session_start)
        api.on(points.SESSION_END, self.session_end)
        api.on(points.BEFORE_ASK, self.before_ask)
        api.on("permission_request", self.notify)
        api.on("ui_request", self.notify)
        api.on("turn_end", self.waiting)
        api.on("permission_resolved", self.answered)
        api.on("ui_resolved", self.answered)
        api.register_command("hooks", HOOKS_HELP, self.command)

    # ------------------------------------------------------------ the events

    async def before_prompt(self, check: PromptCheck) -> HookVerdict:
        self.idle.done()  # a prompt came: no one is waited for
        contexts: list[str] = []
        for run in await self._fire("UserPromptSubmit", check.place, None, prompt=check.prompt):
            if run.halt is not None:
                return self._done(run, "stop", HookVerdict(halt=run.halt))
            if run.blocked:
                reason = run.reason or "blocked by a UserPromptSubmit hook"
                return self._done(run, "block", HookVerdict(block=True, reason=reason))
            if context := run.context(plain=True):
                contexts.append(context)
            self._record(run, "context" if context else self._plain(run))
        return HookVerdict(context="\n\n".join(contexts) or None)

    async def before_tool(self, check: ToolCheck) -> HookVerdict | None:
        current: JsonObject = check.input
        updated = False
        for hook in self.config.for_event("PreToolUse", check.tool):
            payload = self._payload(
                "PreToolUse", check.place, tool_name=check.tool, tool_use_id=check.call_id
            )
            payload["tool_input"] = claude_input(current)
            run = await self._run(hook, payload, check.place)
            decision = run.specific.get("permissionDecision")
            if run.halt is not None:
                return self._done(run, "stop", HookVerdict(halt=run.halt))
            if run.blocked or decision == "deny":
                return self._done(run, "deny", HookVerdict(block=True, reason=run.reason))
            changed = run.specific.get("updatedInput")
            if not run.failed and isinstance(changed, dict):
                current, updated = shard_input(cast(JsonObject, changed)), True
                self._record(run, "updated_input")
            else:
                said = decision if decision in ("allow", "ask") else "none"
                self._record(run, "error" if run.failed else said)
        return HookVerdict(updated_input=current if updated else None)

    async def after_tool(self, done: ToolDone) -> HookVerdict:
        texts: list[str] = []
        check = done.check
        response = {"text": done.result.text, "is_error": done.result.is_error}
        fields = {
            "tool_name": check.tool,
            "tool_input": claude_input(check.input),
            "tool_response": response,
            "tool_use_id": check.call_id,
        }
        for run in await self._fire("PostToolUse", check.place, check.tool, **fields):
            if run.halt is not None:
                return self._done(run, "stop", HookVerdict(halt=run.halt))
            context = run.context()
            texts += [t for t in (context, run.reason if run.blocked else None) if t]
            self._record(
                run, "block" if run.blocked else "context" if context else self._plain(run)
            )
        return HookVerdict(context="\n\n".join(texts) or None)

    async def before_stop(self, check: StopCheck) -> HookVerdict:
        event = "SubagentStop" if check.place.parent_agent_id else "Stop"
        for run in await self._fire(event, check.place, None, stop_hook_active=check.active):
            if run.halt is not None:
                return self._done(run, "stop", HookVerdict(halt=run.halt))
            if run.blocked:
                reason = run.reason or f"a {event} hook asked the agent to go on"
                return self._done(run, "continue", HookVerdict(block=True, reason=reason))
            self._record(run, self._plain(run))
        return HookVerdict()

    async def before_compact(self, check: CompactCheck) -> None:
        fields = {"trigger": check.trigger, "custom_instructions": ""}
        for run in await self._fire("PreCompact", check.place, check.trigger, **fields):
            self._record(run, self._plain(run))

    async def session_start(self, check: SessionCheck) -> HookVerdict:
        contexts: list[str] = []
        for run in await self._fire("SessionStart", check.place, check.source, source=check.source):
            if context := run.context(plain=True):
                contexts.append(context)
            self._record(run, "context" if context else self._plain(run))
        return HookVerdict(context="\n\n".join(contexts) or None)

    async def session_end(self, check: SessionCheck) -> None:
        self.idle.close()
        for run in await self._fire("SessionEnd", check.place, check.source, reason=check.source):
            self._record(run, self._plain(run))

    async def before_ask(self, check: AskCheck) -> HookVerdict | None:
        """Allow or deny from the first hook that says so; anything else asks as usual."""
        fields = {
            "tool_name": check.tool,
            "tool_input": claude_input(check.input),
            "tool_use_id": check.call_id,
        }
        for run in await self._fire("PermissionRequest", check.place, check.tool, **fields):
            found = run.specific.get("decision")
            said = cast(dict[str, Any], found) if isinstance(found, dict) else {}
            behavior, message = said.get("behavior"), said.get("message")
            if run.exit_code == 2 or (not run.failed and behavior == "deny"):
                reason = run.reason if run.exit_code == 2 else str(message or "")
                return self._done(run, "deny", HookVerdict(block=True, reason=reason))
            if not run.failed and behavior == "allow":
                return self._done(run, "allow", HookVerdict(allow=True))
            self._record(run, self._plain(run))
        return None

    async def notify(self, event: PermissionRequestEvent | UiRequestEvent) -> None:
        if self.place is None or not self.config.for_event("Notification"):
            return
        if isinstance(event, PermissionRequestEvent):
            kind, message = "permission_prompt", f"Shard needs your permission to use {event.tool}"
            waiting = f"Shard is waiting for your permission to use {event.tool}"
        else:
            kind, message = "elicitation_dialog", event.title
            waiting = f"Shard is waiting for your answer: {event.title}"
        if self.config.for_event("Notification", "idle_prompt"):
            self.idle.wait(event.request_id, waiting)
        fields = {"message": message, "notification_type": kind}
        for run in await self._fire("Notification", self.place, kind, **fields):
            self._record(run, self._plain(run))

    def waiting(self, event: TurnEndEvent) -> None:
        """A turn ended: the agent waits for the next prompt."""
        if self.place is not None and self.config.for_event("Notification", "idle_prompt"):
            self.idle.wait(PROMPT, "Shard is waiting for your input")

    def answered(self, event: PermissionResolvedEvent | UiResolvedEvent) -> None:
        self.idle.done(event.request_id)

    async def idle_prompt(self, message: str) -> None:
        if self.place is None:
            return
        fields = {"message": message, "notification_type": "idle_prompt"}
        place = replace(self.place, turn_id=None)  # between turns
        for run in await self._fire("Notification", place, "idle_prompt", **fields):
            self._record(run, self._plain(run))

    # ------------------------------------------------------------ running

    def _payload(self, event: str, place: HookPlace, **fields: Any) -> dict[str, Any]:
        self.place = place
        return {
            "session_id": place.session_id,
            "transcript_path": place.transcript_path,
            "cwd": place.cwd,
            "hook_event_name": event,
            **fields,
        }

    async def _fire(
        self, event: str, place: HookPlace, target: str | None, **fields: Any
    ) -> list[HookRun]:
        """Run the event's matching hooks one after another (each sees the same input)."""
        payload = self._payload(event, place, **fields)
        hooks = self.config.for_event(event, target)
        return [await self._run(hook, payload, place) for hook in hooks]

    async def _run(self, hook: HookCommand, payload: dict[str, Any], place: HookPlace) -> HookRun:
        try:
            agent = place.agent_id or "hooks"
            run = await run_hook(hook, payload, self.cwd, sandbox=self.sandbox, agent_id=agent)
        except OSError as exc:  # could not start: an error that decides nothing
            run = HookRun(hook, None, "", f"could not start: {exc}", 0.0)
        run.place = place
        run.tool, run.tool_call_id = payload.get("tool_name"), payload.get("tool_use_id")
        return run

    @staticmethod
    def _plain(run: HookRun) -> HookDecision:
        return "error" if run.failed else "none"

    def _done(self, run: HookRun, decision: HookDecision, verdict: HookVerdict) -> HookVerdict:
        said = verdict.halt or verdict.reason or None
        self._record(run, decision, said)
        return verdict

    def _record(self, run: HookRun, decision: HookDecision, reason: str | None = None) -> None:
        """Keep the run for `/hooks`, and report it (the session logs it and shows it)."""
        if run.failed and reason is None:
            reason = "timed out" if run.timed_out else (run.stderr.strip()[-500:] or None)
        place = run.place
        record = HookRunCheckpoint(
            event=run.hook.event,
            command=run.hook.command,
            source=run.hook.source,
            tool=run.tool,
            tool_call_id=run.tool_call_id,
            turn_id=place.turn_id if place else None,
            exit_code=run.exit_code,
            timed_out=run.timed_out,
            duration_ms=run.duration_ms,
            decision=decision,
            reason=reason,
            system_message=run.system_message,
            sandboxed=run.sandboxed,
        )
        self.runs.append(record)
        log.info("hook run %s", record.model_dump(exclude_none=True))
        if place is not None and place.report is not None:
            place.report(record)

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
                    f"- {r.event} `{r.command}`: exit {r.exit_code}, "
                    f"{r.duration_ms:g} ms, {r.decision}"
                )
        return "\n".join(lines)
