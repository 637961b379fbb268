"""The system prompt: stable sections first (cache-friendly), volatile ones last, plus hashes."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path

from shard_core.types import SessionEntry, SystemSection, ToolSpec

PROMPT_SECTIONS_EVENT = "prompt_sections"
"""`api.on(PROMPT_SECTIONS_EVENT, source)`: an extension offers prompt sections; `source(branch)`
is asked before every provider request with the active branch (the session log from the root to
the leaf, compacted entries included) and returns the sections for it. Stable ones sort before
volatile ones in `assemble`; a stable section must not change between requests (the prompt
cache), a volatile one may (e.g. skills rehydrated after compaction)."""

SectionSource = Callable[[Sequence[SessionEntry]], Sequence[SystemSection]]

IDENTITY = """You are Shard, a coding agent working in the directory {cwd}.
You act through tools: read files before you change them, make the smallest change that solves
the task, run the project's tests with bash to check your work, and say briefly what you did.
Paths are relative to {cwd}. The file tools reach a path outside it only when an allow rule
names that path absolutely (e.g. `Read(/etc/hosts)`) or the user approves the call; then
exactly that path, nothing beside it.
A tool result marked as an error says what went wrong: read it and adapt.
Earlier parts of a long session may be summarised; the `recall` tool (when available) reads
everything that was said or done before, verbatim."""


def identity_section(cwd: Path) -> SystemSection:
    return SystemSection(name="identity", text=IDENTITY.format(cwd=cwd), stable=True)


def contributed_sections(
    sources: Sequence[SectionSource], branch: Sequence[SessionEntry]
) -> list[SystemSection]:
    """What the extensions' section sources offer for this branch, in registration order."""
    return [section for source in sources for section in source(branch)]


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
