"""The scripted provider's inputs: the script file format, its loader, the session-replay
loader, and the `expect` check. The format is described in `scripted.py` and docs/SCRIPTED.md.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from shard_core.types import (
    AssistantMessage,
    Message,
    MessageEntry,
    SessionEntry,
    TextBlock,
    ToolResultBlock,
    UserMessage,
)
from shard_core.types.errors import ConfigError

_SHOWN_RESULT_CHARS = 800


class _ScriptModel(BaseModel):
    # A misspelt key in a hand-written script must be an error, not a silently skipped check.
    model_config = ConfigDict(extra="forbid", frozen=True)


class ScriptToolCall(_ScriptModel):
    name: str = Field(min_length=1)
    input: dict[str, Any] = Field(default_factory=dict[str, Any])


class Expectation(_ScriptModel):
    """What the previous tool result must look like for the script to go on."""

    last_tool_result_contains: str | list[str] | None = None
    last_tool_is_error: bool | None = None
    description: str | None = Field(
        default=None, description="what was expected, for the message: 'the test run to pass'"
    )


class ScriptStep(_ScriptModel):
    """One assistant reply. `delay` is the seconds it takes, spread over its chunks."""

    text: str = ""
    thinking: str | None = None
    tool_calls: list[ScriptToolCall] = Field(default_factory=list[ScriptToolCall])
    expect: Expectation | None = None
    delay: float = Field(default=0.0, ge=0)
    stop_reason: Literal["max_tokens", "refusal"] | None = Field(
        default=None,
        description="end the reply as cut at the token limit or declined (default: end_turn, "
        "or tool_use with calls)",
    )


class Script(_ScriptModel):
    name: str = Field(min_length=1)
    description: str | None = None
    steps: list[ScriptStep]


def load_script(path: Path) -> Script:
    """A script file, or a ConfigError that names the file and what is wrong with it."""
    try:
        return Script.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except OSError as exc:
        raise ConfigError(f"cannot read script {path}: {exc.strerror or exc}") from exc
    except json.JSONDecodeError as exc:
        raise ConfigError(f"script {path}: invalid JSON at line {exc.lineno}: {exc.msg}") from exc
    except ValidationError as exc:
        raise ConfigError(f"script {path}: {_problems(exc)}") from exc


def demo_script() -> Script:
    """The bundled demo (`scripts/demo.json`): fix `add` in calc.py, run the tests, sum up."""
    text = resources.files("shard_core.providers").joinpath("scripts/demo.json").read_text("utf-8")
    return Script.model_validate_json(text)


_ENTRY = TypeAdapter[SessionEntry](SessionEntry)


def load_session_replies(path: Path) -> list[AssistantMessage]:
    """Every assistant message of a recorded session JSONL, in file order."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ConfigError(f"cannot read session {path}: {exc.strerror or exc}") from exc
    replies: list[AssistantMessage] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            entry = _ENTRY.validate_json(line)
        except ValidationError as exc:
            raise ConfigError(f"session {path}, line {number}: {_problems(exc)}") from exc
        if isinstance(entry, MessageEntry) and isinstance(entry.details.message, AssistantMessage):
            replies.append(entry.details.message)
    return replies


def unmet(expect: Expectation, messages: list[Message]) -> str | None:
    """Why `expect` does not hold for the newest tool result in `messages`, or None if it does."""
    result = _last_tool_result(messages)
    wanted = expect.description or _describe(expect)
    if result is None:
        return f"expected {wanted}, but there was no tool result"
    text = "\n".join(c.text for c in result.content if isinstance(c, TextBlock))
    needles = expect.last_tool_result_contains
    needles = [needles] if isinstance(needles, str) else needles or []
    holds = all(n in text for n in needles) and expect.last_tool_is_error in (
        None,
        result.is_error,
    )
    if holds:
        return None
    if len(text) > _SHOWN_RESULT_CHARS:
        text = "…" + text[-_SHOWN_RESULT_CHARS:]
    error = " (an error)" if result.is_error else ""
    return f"expected {wanted}, but the last tool result{error} was:\n{text or '(empty)'}"


def _last_tool_result(messages: list[Message]) -> ToolResultBlock | None:
    for message in reversed(messages):
        if isinstance(message, UserMessage):
            results = [b for b in message.content if isinstance(b, ToolResultBlock)]
            if results:
                return results[-1]
    return None


def _describe(expect: Expectation) -> str:
    parts: list[str] = []
    needles = expect.last_tool_result_contains
    for needle in [needles] if isinstance(needles, str) else needles or []:
        parts.append(f"to contain {needle!r}")
    if expect.last_tool_is_error is not None:
        parts.append("to be an error" if expect.last_tool_is_error else "not to be an error")
    return "the last tool result " + (" and ".join(parts) or "to exist")


def _problems(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
