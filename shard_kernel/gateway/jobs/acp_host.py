"""AcpChildHost: the client side Shard plays for an ACP agent running as a subagent.

It is the `acp.Client` the SDK's client connection calls (acp_child.py spawns the agent):

- `session_update` — the agent's updates become Shard's: its message and thought chunks, tool
  calls and their results are written to the child's session log (`SHARD_HOME/agents/<id>/
  sessions/`, `current-session` beside it) and published as Shard events into its
  `events.jsonl` (turn_start, message_delta, tool_call, tool_result, message_complete,
  turn_end), so the gateway's history, recall and the Lab panel read an ACP child like any.
- `request_permission` — Shard's gate answers: the child's manifest rules (its parent's bounds,
  narrowed by the definition), its grants, then its headless policy (a subagent has no person
  of its own). The ACP tool kind names the Shard tool a rule is written for: `execute` is
  `Bash(<command>)`, `edit`/`delete`/`move` are `Edit(<path>)`, `read` is `Read(<path>)`,
  `search` is `Grep`, others `Acp<Kind>`. Allowed: the agent's `allow_once` option; denied:
  its `reject_once` (or a cancelled outcome when it offers none).
- `read_text_file` / `write_text_file` — served only inside the child's workspace: never a
  path outside it, never a protected one (`.git`, `.shard`, …) for writing, never against a
  deny rule, and a write only where the gate allows an edit of that path (a rule, or this run's
  allowed permission request for it).

Terminals are not offered (`terminal: false`): the agent runs its commands itself, after
asking.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import time
from pathlib import Path
from typing import Any

from acp import RequestError
from acp.schema import (
    AllowedOutcome,
    DeniedOutcome,
    PermissionOption,
    ReadTextFileResponse,
    RequestPermissionResponse,
    ToolCallUpdate,
    WriteTextFileResponse,
)

from shard_core.contracts import PermissionQuery, ToolContext
from shard_core.engine.config import load_config
from shard_core.engine.event_log import EventLog
from shard_core.engine.events import EventStream
from shard_core.engine.permissions.gate import RuleGate
from shard_core.engine.permissions.grants import GrantStore
from shard_core.engine.permissions.sources import RuleSet, load_rules
from shard_core.engine.session_store import SessionStore
from shard_core.protocol.events import (
    MessageCompleteEvent,
    MessageDeltaEvent,
    ToolCallEvent,
    ToolResultEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from shard_core.tools.workspace import resolve_in_workspace
from shard_core.types import Deny, PermissionDetails, ToolResult
from shard_core.types.content import (
    AssistantMessage,
    ContentBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    UserMessage,
)
from shard_core.types.protected import protected_part
from shard_core.types.session import (
    MessageDetails,
    MessageEntry,
    PermissionEntry,
    ToolResultDetails,
    ToolResultEntry,
)
from shard_kernel.gateway.jobs.backends import ChildTurn

__all__ = ["AcpChildHost", "shard_call"]

MAX_FILE_BYTES = 8 * 1024 * 1024
_PATH_KINDS = {"edit": "edit", "delete": "edit", "move": "edit", "read": "read"}
_PATH_KEYS = ("path", "file_path", "filePath", "abs_path", "target")


def shard_call(kind: str | None, title: str, raw: Any, paths: list[str]) -> tuple[str, Any, bool]:
    """The Shard tool, input and read-only flag an ACP tool call is judged as by the gate."""
    raw_input: dict[str, Any] = dict(raw) if isinstance(raw, dict) else {}  # pyright: ignore[reportUnknownArgumentType]
    path = (
        paths[0]
        if paths
        else next(
            (str(raw_input[k]) for k in _PATH_KEYS if isinstance(raw_input.get(k), str)), None
        )
    )
    kind = kind or "other"
    if kind == "execute":
        command = raw_input.get("command")
        if isinstance(command, list):
            command = shlex.join(str(c) for c in command)  # pyright: ignore[reportUnknownVariableType]
        return "bash", {"command": str(command or title)}, False
    if kind in _PATH_KINDS and path is not None:
        return _PATH_KINDS[kind], {"path": path}, kind == "read"
    if kind == "search":
        return (
            "grep",
            {"pattern": str(raw_input.get("pattern") or title), "path": path or "."},
            True,
        )
    name = "acp_" + "".join(c if c.isalnum() else "_" for c in kind.lower())
    return name, raw_input or {"title": title}, kind == "think"


class AcpChildHost:
    """One run's client: the child's log, events and gate (open with `open`, end with `close`)."""

    def __init__(self, turn: ChildTurn, *, trust_project: bool) -> None:
        self.turn = turn
        self.manifest = turn.manifest
        self.agent_id = turn.manifest.id
        self.cwd = Path(os.path.realpath(turn.manifest.cwd))
        self.folder = turn.home / "agents" / self.agent_id
        self.trust_project = trust_project
        self.turn_id = f"turn-{os.urandom(6).hex()}"
        self.report = ""
        self.entry_id: str | None = None
        self._text: list[str] = []
        self._thinking: list[str] = []
        self._calls: dict[str, dict[str, Any]] = {}
        self._allowed_paths: set[Path] = set()
        self.store: SessionStore | None = None
        self._events: EventLog | None = None
        self.stream = EventStream(self.agent_id)
        self.gate: RuleGate | None = None

    # ------------------------------------------------------------ lifecycle

    def open(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        pointer = self.folder / "current-session"
        previous = pointer.read_text(encoding="utf-8").strip() if pointer.exists() else ""
        log = self.folder / "sessions" / f"{previous}.jsonl"
        if previous and log.exists():
            self.store = SessionStore.open(log)
        else:
            self.store = SessionStore.create(
                self.folder / "sessions", self.cwd, agent_id=self.agent_id
            )
            pointer.write_text(self.store.session_id + "\n", encoding="utf-8")
        self._events = EventLog(self.folder / "events.jsonl")
        self.stream = EventStream(self.agent_id, self._events.next_seq)
        self.stream.subscribe(self._events.append)
        self.gate = self._gate()

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
        if self._events is not None:
            self._events.close()

    @property
    def session_id(self) -> str | None:
        return self.store.session_id if self.store is not None else None

    def _gate(self) -> RuleGate:
        bounds = self.manifest.permissions
        source = f"subagent {self.manifest.name}'s bounds"
        rules = load_rules(
            self.cwd,
            load_config().permissions,
            trust_project=self.trust_project,
            allow=bounds.allow,
            deny=bounds.deny,
            added=RuleSet.parse(source, ask=bounds.ask),
            given_by=source,
        )
        return RuleGate(
            rules=rules,
            grants=GrantStore(self.agent_id, self.turn.home),
            record=self._record,
            events=self.stream,
            headless_policy=self.manifest.headless_policy,
            timeout=self.manifest.permission_timeout,
            has_responder=lambda: False,
        )

    async def _record(self, details: PermissionDetails) -> None:
        assert self.store is not None
        self.store.append(PermissionEntry, details)

    # ------------------------------------------------------------ the turn

    def begin(self, prompt: str) -> None:
        assert self.store is not None
        user = UserMessage(content=[TextBlock(text=prompt)])
        entry = self.store.append(MessageEntry, MessageDetails(message=user, turn_id=self.turn_id))
        self.stream.emit(TurnStartEvent, turn_id=self.turn_id, prompt=prompt, entry_id=entry.id)

    def finish(self, reason: str, error: str | None = None) -> None:
        """The turn's last message and its end (`reason`: completed, aborted or error)."""
        self._flush(None)
        self.stream.emit(
            TurnEndEvent,
            turn_id=self.turn_id,
            reason=reason,  # pyright: ignore[reportArgumentType]
            error=error,
        )

    def _flush(self, call: ToolCallBlock | None) -> None:
        """The text and thinking so far (and the tool call that ends them) as one message."""
        content: list[ContentBlock] = []
        if self._thinking:
            content.append(ThinkingBlock(thinking="".join(self._thinking)))
        text = "".join(self._text)
        if text:
            content.append(TextBlock(text=text))
            self.report = text.strip()
        if call is not None:
            content.append(call)
        self._text, self._thinking = [], []
        if not content or self.store is None:
            return
        message = AssistantMessage(
            content=content,
            model=self.manifest.model,
            stop_reason="tool_use" if call else "end_turn",
        )
        entry = self.store.append(
            MessageEntry, MessageDetails(message=message, turn_id=self.turn_id)
        )
        self.entry_id = entry.id
        self.stream.emit(
            MessageCompleteEvent, turn_id=self.turn_id, entry_id=entry.id, message=message
        )

    # ------------------------------------------------------------ acp.Client

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        kind = getattr(update, "session_update", None)
        if kind in ("agent_message_chunk", "agent_thought_chunk"):
            text = getattr(update.content, "text", None)
            if not isinstance(text, str):
                return
            thinking = kind == "agent_thought_chunk"
            (self._thinking if thinking else self._text).append(text)
            channel = "thinking" if thinking else "text"
            self.stream.emit(MessageDeltaEvent, turn_id=self.turn_id, channel=channel, delta=text)
        elif kind == "tool_call":
            self._started(update)
        elif kind == "tool_call_update":
            self._updated(update)

    def _started(self, update: Any) -> None:
        call = self._remember(update)
        name, input, read_only = self._judged(call)
        block = ToolCallBlock(id=call["id"], name=name, input={**input, "title": call["title"]})
        self._flush(block)
        self.stream.emit(ToolCallEvent, turn_id=self.turn_id, call=block, read_only=read_only)
        if update.status in ("completed", "failed"):
            self._ended(call, update.status)

    def _updated(self, update: Any) -> None:
        known = update.tool_call_id in self._calls
        call = self._remember(update)
        if not known:  # an update for a call never announced: announce it now
            self._started(update)
            return
        if update.status in ("completed", "failed"):
            self._ended(call, update.status)

    def _remember(self, update: Any) -> dict[str, Any]:
        call = self._calls.setdefault(
            update.tool_call_id,
            {"id": update.tool_call_id, "title": "", "kind": None, "raw": None, "paths": [],
             "content": [], "ended": False, "started": time.monotonic()},
        )  # fmt: skip
        for key, value in (
            ("title", update.title),
            ("kind", update.kind),
            ("raw", update.raw_input),
        ):
            if value is not None:
                call[key] = value
        if update.locations:
            call["paths"] = [loc.path for loc in update.locations]
        if update.content:
            call["content"] = list(update.content)
        if getattr(update, "raw_output", None) is not None:
            call["output"] = update.raw_output
        return call

    def _judged(self, call: dict[str, Any]) -> tuple[str, dict[str, Any], bool]:
        name, input, read_only = shard_call(call["kind"], call["title"], call["raw"], call["paths"])
        return name, dict(input), read_only

    def _ended(self, call: dict[str, Any], status: str) -> None:
        if call["ended"] or self.store is None:
            return
        call["ended"] = True
        name, _, _ = self._judged(call)
        text = _content_text(call) or f"{call['title'] or name}: {status}"
        result = ToolResult.error(text) if status == "failed" else ToolResult.ok(text)
        duration = (time.monotonic() - call["started"]) * 1000
        entry = self.store.append(
            ToolResultEntry,
            ToolResultDetails(tool_call_id=call["id"], name=name, result=result,
                              duration_ms=duration, turn_id=self.turn_id),
        )  # fmt: skip
        self.stream.emit(
            ToolResultEvent, turn_id=self.turn_id, tool_call_id=call["id"], name=name,
            entry_id=entry.id, result=result,
        )  # fmt: skip

    async def request_permission(
        self, options: list[PermissionOption], session_id: str, tool_call: ToolCallUpdate,
        **kwargs: Any,
    ) -> RequestPermissionResponse:  # fmt: skip
        if self.gate is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        call = self._remember(tool_call)
        name, input, read_only = self._judged(call)
        query = PermissionQuery(
            tool=name, input=input, read_only=read_only, cwd=self.cwd, call_id=call["id"],
            turn_id=self.turn_id, agent_id=self.agent_id,
        )  # fmt: skip
        outcome = await self.gate.authorize(query)
        allowed = outcome.decision.kind in ("allow", "allow_always")
        if allowed and name == "edit":
            self._allowed_paths.add(Path(os.path.realpath(self.cwd / str(input["path"]))))
        wanted = ("allow_once", "allow_always") if allowed else ("reject_once", "reject_always")
        for kind in wanted:
            option = next((o for o in options if o.kind == kind), None)
            if option is not None:
                chosen = AllowedOutcome(outcome="selected", option_id=option.option_id)
                return RequestPermissionResponse(outcome=chosen)
        return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))

    async def read_text_file(
        self, path: str, session_id: str, limit: int | None = None, line: int | None = None,
        **kwargs: Any,
    ) -> ReadTextFileResponse:  # fmt: skip
        target = self._inside(path, "read")
        try:
            if target.stat().st_size > MAX_FILE_BYTES:
                raise _refused(f"{path} is larger than {MAX_FILE_BYTES} bytes")
            text = target.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise _refused(f"cannot read {path}: {exc.strerror or exc}") from None
        if line is not None or limit is not None:
            lines = text.splitlines(keepends=True)
            start = max(0, (line or 1) - 1)
            text = "".join(lines[start : None if limit is None else start + limit])
        return ReadTextFileResponse(content=text)

    async def write_text_file(
        self, content: str, path: str, session_id: str, **kwargs: Any
    ) -> WriteTextFileResponse | None:
        target = self._inside(path, "edit")
        rel = os.path.relpath(target, self.cwd)
        part = protected_part(rel)
        if part is not None:
            raise _refused(f"{path} is protected ({part}): a subagent does not write there")
        if target not in self._allowed_paths:
            decision = self._evaluate("edit", str(target), read_only=False)
            if decision != "allow":
                raise _refused(f"writing {path} needs an allowed edit: ask permission for it first")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")
        except OSError as exc:
            raise _refused(f"cannot write {path}: {exc.strerror or exc}") from None
        return WriteTextFileResponse()

    def _inside(self, path: str, tool: str) -> Path:
        ctx = ToolContext(
            cwd=self.cwd, roots=(self.cwd,), agent_id=self.agent_id, session_id="", call_id=""
        )
        resolved = resolve_in_workspace(path, ctx)
        if isinstance(resolved, ToolResult):
            said = "; ".join(b.text for b in resolved.content if isinstance(b, TextBlock))
            raise _refused(f"{tool} refused: {said}")
        if self._evaluate(tool, str(resolved), read_only=tool == "read") == "deny":
            raise _refused(f"{tool} of {path} is denied by a rule")
        return resolved

    def _evaluate(self, tool: str, path: str, *, read_only: bool) -> str:
        if self.gate is None:
            return "deny"
        query = PermissionQuery(
            tool=tool, input={"path": path}, read_only=read_only, cwd=self.cwd, call_id="fs",
            turn_id=self.turn_id, agent_id=self.agent_id,
        )  # fmt: skip
        try:
            decision = self.gate.evaluate(query)
        except Exception:  # fail closed
            return "deny"
        return "deny" if isinstance(decision, Deny) else decision.kind


def _refused(message: str) -> RequestError:
    return RequestError.invalid_params({"message": message})


def _content_text(call: dict[str, Any]) -> str:
    """What a finished tool call showed: its text content, diffs and raw output, joined."""
    parts: list[str] = []
    for item in call.get("content") or []:
        kind = getattr(item, "type", None)
        if kind == "content":
            text = getattr(item.content, "text", None)
            if isinstance(text, str):
                parts.append(text)
        elif kind == "diff":
            parts.append(f"edited {item.path}")
    output = call.get("output")
    if not parts and output is not None:
        with contextlib.suppress(TypeError, ValueError):
            parts.append(output if isinstance(output, str) else repr(output))
    return "\n".join(parts).strip()
