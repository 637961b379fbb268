"""What recall indexes per entry — searchable text, a short label, the files it touched — and
how `expand` shows a whole entry.

The recall tool's own calls and results are not searchable (they only repeat older entries),
and neither are compaction summaries (they repeat what they fold); both keep their index.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from shard_core.contracts.access import CommandAccess
from shard_core.engine.access import access_for
from shard_core.types import (
    CheckpointEntry,
    CompactionEntry,
    ContextCheckpoint,
    FilesCheckpoint,
    GoalCheckpoint,
    MessageEntry,
    ModeCheckpoint,
    PermissionEntry,
    PlanCheckpoint,
    ResultContent,
    SessionEntry,
    SessionHeaderEntry,
    SkillCheckpoint,
    TextBlock,
    ThinkingBlock,
    TitleCheckpoint,
    TodosCheckpoint,
    ToolCallBlock,
    ToolResultBlock,
    ToolResultEntry,
)

RECALL_TOOL = "recall"
PATH_KEYS = ("path", "file_path", "filePath", "file")
_PATHISH = re.compile(r"(?:^|\s)['\"]?((?:\.{0,2}/)?[\w.-]+(?:/[\w.-]+)*\.[A-Za-z0-9]{1,8})\b")


@dataclass(frozen=True)
class Doc:
    kind: str
    label: str
    text: str
    paths: tuple[str, ...]
    searchable: bool
    calls: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(call id, paths) of tool calls the entry makes, so their results can name the files."""


def _content_text(content: list[ResultContent]) -> str:
    return "\n".join(b.text if isinstance(b, TextBlock) else "[image]" for b in content)


def call_paths(call: ToolCallBlock) -> tuple[str, ...]:
    found = [call.input[k] for k in PATH_KEYS if isinstance(call.input.get(k), str)]
    command = call.input.get("command")
    if isinstance(command, str):
        found += [m.group(1) for m in _PATHISH.finditer(command)]
    return tuple(dict.fromkeys(str(p).removeprefix("./") for p in found if p))


def _call_text(call: ToolCallBlock) -> str:
    access = access_for(call.name)
    command = call.input.get(access.arg) if isinstance(access, CommandAccess) else None
    if isinstance(command, str):
        return f"$ {command}"
    return f"{call.name} {json.dumps(call.input, ensure_ascii=False, sort_keys=True)}"


def _message(entry: MessageEntry) -> Doc:
    message = entry.details.message
    parts: list[str] = []
    calls: list[tuple[str, tuple[str, ...]]] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            parts.append(block.text)
        elif isinstance(block, ThinkingBlock):
            parts.append(block.thinking)
        elif isinstance(block, ToolCallBlock):
            calls.append((block.id, call_paths(block)))
            if block.name != RECALL_TOOL:
                parts.append(_call_text(block))
        elif isinstance(block, ToolResultBlock):
            parts.append(_content_text(block.content))
    names = [b.name for b in message.content if isinstance(b, ToolCallBlock)]
    label = message.role + (f" → {', '.join(names)}" if names else "")
    paths = tuple(dict.fromkeys(p for _, ps in calls for p in ps))
    text = "\n".join(p for p in parts if p)
    return Doc("message", label, text, paths, bool(text.strip()), tuple(calls))


def _tool_result(entry: ToolResultEntry) -> Doc:
    d = entry.details
    code = d.result.details.get("exit_code")
    status = " error" if d.result.is_error else ""
    status += f" exit {code}" if isinstance(code, int) else ""
    label = f"tool_result {d.name}{status}"
    return Doc("tool_result", label, d.result.text, (), d.name != RECALL_TOOL)


def _checkpoint(entry: CheckpointEntry) -> Doc:
    details = entry.details
    if isinstance(details, PlanCheckpoint):
        steps = "\n".join(f"[{'x' if s.done else ' '}] {s.text}" for s in details.steps)
        return Doc("checkpoint", "checkpoint plan", f"{details.text}\n{steps}".strip(), (), True)
    if isinstance(details, ModeCheckpoint):
        return Doc("checkpoint", "checkpoint mode", f"mode {details.mode}", (), True)
    if isinstance(details, SkillCheckpoint):
        return Doc(
            "checkpoint", "checkpoint skill", f"skill {details.name} {details.path}", (), True
        )
    if isinstance(details, TitleCheckpoint):
        return Doc("checkpoint", "checkpoint title", f"title {details.title}", (), True)
    if isinstance(details, FilesCheckpoint):
        paths = " ".join(c.path for c in details.changes)
        return Doc("checkpoint", f"checkpoint files {details.origin}", paths, (), True)
    if isinstance(details, GoalCheckpoint):
        return Doc("checkpoint", "checkpoint goal", f"goal {details.status} {details.text or ''}",
                   (), True)  # fmt: skip
    if isinstance(details, TodosCheckpoint):
        items = "\n".join(f"[{i.status}] {i.content}" for i in details.items)
        return Doc("checkpoint", f"checkpoint todos {details.source}", items, (), True)
    assert isinstance(details, ContextCheckpoint)
    return Doc("checkpoint", "checkpoint context", "", (), False)


def document(entry: SessionEntry) -> Doc:
    if isinstance(entry, MessageEntry):
        return _message(entry)
    if isinstance(entry, ToolResultEntry):
        return _tool_result(entry)
    if isinstance(entry, CheckpointEntry):
        return _checkpoint(entry)
    if isinstance(entry, CompactionEntry):
        label = f"compaction #{entry.details.index}"
        return Doc("compaction", label, entry.details.summary, (), False)
    if isinstance(entry, PermissionEntry):
        d = entry.details
        text = f"permission {d.tool} {d.decision} by {d.source} {json.dumps(d.input)}"
        return Doc(
            "permission", f"permission {d.tool} {d.decision}", text, (), d.tool != RECALL_TOOL
        )
    assert isinstance(entry, SessionHeaderEntry)
    d = entry.details
    return Doc("session", "session start", f"session {d.session_id} in {d.cwd}", (), True)


def full_text(entry: SessionEntry) -> str:
    """Everything the entry holds, for `expand`: text, thinking, tool inputs, whole outputs."""
    if isinstance(entry, MessageEntry):
        lines: list[str] = []
        for block in entry.details.message.content:
            if isinstance(block, TextBlock):
                lines.append(block.text)
            elif isinstance(block, ThinkingBlock):
                lines.append(f"[thinking]\n{block.thinking}")
            elif isinstance(block, ToolCallBlock):
                args = json.dumps(block.input, ensure_ascii=False, indent=2)
                lines.append(f"[tool call {block.name} id={block.id}]\n{args}")
            elif isinstance(block, ToolResultBlock):
                lines.append(
                    f"[tool result for {block.tool_call_id}]\n{_content_text(block.content)}"
                )
            else:
                lines.append(f"[image {block.media_type}]")
        return "\n\n".join(lines)
    if isinstance(entry, ToolResultEntry):
        return entry.details.result.text
    if isinstance(entry, CompactionEntry):
        return entry.details.summary
    return document(entry).text
