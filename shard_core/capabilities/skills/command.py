"""`/skills` and `/skills NAME`: what the skills capability found, as markdown for a cell.

Registered through `api.register_command`, so every surface that takes slash commands has it.
Skill text is other people's: every field is escaped, a body is fenced so it stays text.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from shard_core.capabilities.skills.discovery import read_skill
from shard_core.capabilities.skills.registry import SkillRecord, SkillRegistry
from shard_core.capabilities.skills.resources import list_resources

DESCRIPTION = "the Agent Skills this agent can load (`/skills NAME`: one skill, with its body)"
NONE_FOUND = (
    "No skills: none were found in `~/.shard/skills` or `~/.agents/skills` (nor, with "
    "--trust-project, in the project's `.shard/skills` or `.agents/skills`)."
)


def literal(text: str) -> str:
    """`text` as itself in markdown: every ASCII punctuation mark backslash-escaped."""
    return re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", text)


def fenced(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}markdown\n{text}\n{fence}"


def skills_command(registry: Callable[[], SkillRegistry]) -> Callable[[list[str]], str]:
    def run(args: list[str]) -> str:
        if len(args) > 1:
            return "usage: `/skills` lists the skills, `/skills NAME` shows one"
        return show_skill(registry(), args[0]) if args else skills_table(registry())

    return run


def skills_table(registry: SkillRegistry) -> str:
    notes = [f"- {d.level}: {literal(d.message)}" for d in registry.diagnostics]
    tail = "\n\n" + "\n".join(notes) if notes else ""
    if not registry.skills:
        return NONE_FOUND + tail
    rows = [
        f"| {literal(s.name)} | {s.layer} | {literal(s.description)} | {literal(str(s.path))} |"
        for s in registry.live()
    ]
    return "| skill | layer | description | file |\n|---|---|---|---|\n" + "\n".join(rows) + tail


def show_skill(registry: SkillRegistry, name: str) -> str:
    record = registry.get(name)
    if record is None:
        known = ", ".join(registry.names()) or "none"
        return f"No skill named {literal(name)}; known: {literal(known)}."
    parsed = read_skill(record.path)
    if isinstance(parsed, str):
        return f"Skill {literal(name)} cannot be read now: {literal(parsed)}"
    return "\n".join([*_facts(record), "", fenced(parsed.body)])


def _facts(record: SkillRecord) -> list[str]:
    resources, more = list_resources(record.directory)
    rows = [
        ("description", record.description),
        ("layer", record.layer),
        ("file", str(record.path)),
        (
            "resources",
            f"{len(resources) + more}" + (f": {', '.join(resources[:20])}" if resources else ""),
        ),
        *((key, str(value)) for key, value in record.metadata.items()),
    ]
    return [f"**{literal(record.name)}**", "", "| | |", "|---|---|"] + [
        f"| {key} | {literal(value)} |" for key, value in rows
    ]
