"""session/load's replay: a Shard session log as the ACP updates a host shows again.

Every message on the active branch, in order: the person's prompts and steers as
`user_message_chunk`, the agent's thinking and text as `agent_thought_chunk` /
`agent_message_chunk`, each tool call as `tool_call` followed by its final `tool_call_update`
(completed or failed, with its diffs and output), and the newest todo list (else plan mode's
plan) as a `plan` update. Context that was injected
(a note, a finished task) is not something a person typed: it is left out.
"""

from __future__ import annotations

from pathlib import Path

from shard_core.capabilities.todos.capability import latest_todos
from shard_core.engine.modes import latest_plan
from shard_core.types import (
    AssistantMessage,
    MessageEntry,
    SessionEntry,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultEntry,
    UserMessage,
)
from shard_kernel.acp.updates import (
    Lookup,
    Update,
    UpdateMapper,
    plan_update,
    text_chunk,
    todos_plan,
    tool_call_start,
    user_chunk,
)


def replay(branch: list[SessionEntry], cwd: Path, lookup: Lookup) -> list[Update]:
    mapper = UpdateMapper(cwd, lookup)
    out: list[Update] = []
    for entry in branch:
        if isinstance(entry, MessageEntry):
            out += _message(entry, mapper, cwd, lookup)
        elif isinstance(entry, ToolResultEntry):
            details = entry.details
            name, input = mapper.inputs.pop(details.tool_call_id, (details.name, {}))
            mapper.inputs[details.tool_call_id] = (name, input)
            status = "failed" if details.result.is_error else "completed"
            out.append(mapper.progress(details.tool_call_id, name, details.result, status))
    todos = latest_todos(branch)  # the agent's list (plan mode's plan becomes one too)
    plan = latest_plan(branch)
    if todos is not None:
        out.append(todos_plan(todos.items))
    elif plan is not None:
        out.append(plan_update(plan))
    return out


def _message(entry: MessageEntry, mapper: UpdateMapper, cwd: Path, lookup: Lookup) -> list[Update]:
    message = entry.details.message
    out: list[Update] = []
    if isinstance(message, UserMessage):
        if entry.details.context is not None:
            return out
        text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
        return [user_chunk(text)] if text else out
    if not isinstance(message, AssistantMessage):
        return out
    for block in message.content:
        if isinstance(block, ThinkingBlock) and block.thinking:
            out.append(text_chunk(block.thinking, thought=True))
        elif isinstance(block, TextBlock) and block.text:
            out.append(text_chunk(block.text))
        elif isinstance(block, ToolCallBlock):
            mapper.inputs[block.id] = (block.name, block.input)
            out.append(tool_call_start(block.id, block.name, block.input, cwd, lookup))
    return out
