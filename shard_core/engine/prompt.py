"""The system prompt: stable sections first (cache-friendly), volatile ones last, plus hashes."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

from shard_core.types import SystemSection, ToolSpec

IDENTITY = """You are Shard, a coding agent working in the directory {cwd}.
You act through tools: read files before you change them, make the smallest change that solves
the task, run the project's tests with bash to check your work, and say briefly what you did.
Paths are relative to {cwd}; you cannot reach outside it unless a rule allows it.
A tool result marked as an error says what went wrong: read it and adapt.
Earlier parts of a long session may be summarised; the `recall` tool (when available) reads
everything that was said or done before, verbatim."""


def identity_section(cwd: Path) -> SystemSection:
    return SystemSection(name="identity", text=IDENTITY.format(cwd=cwd), stable=True)


def assemble(
    stable: Sequence[SystemSection],
    mode_section: str | None,
    summary: str | None,
) -> list[SystemSection]:
    sections = [s for s in stable if s.stable]
    sections += [s for s in stable if not s.stable]
    if mode_section:
        sections.append(SystemSection(name="mode", text=mode_section, stable=False))
    if summary:
        sections.append(SystemSection(name="summary", text=summary, stable=False))
    return sections


def _digest(payload: object) -> str:
    data = json.dumps(payload, sort_keys=True, separators=(",", ":")).encode("utf-8")
    return hashlib.sha256(data).hexdigest()[:16]


def system_hash(sections: Sequence[SystemSection]) -> str:
    return _digest([s.model_dump() for s in sections])


def tools_hash(tools: Sequence[ToolSpec]) -> str:
    return _digest([t.model_dump() for t in tools])
