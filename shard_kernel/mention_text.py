"""`@file:PATH` mentions: the text of a file of the agent's folder, read with the read tool's
containment (`resolve_in_workspace`: every symbolic link followed), for the gateway's
`mention-file` route (the Lab chat's mentions) and a Shard notebook cell's prompt alike.

A path outside the folder, a missing file or a folder, and a file that is not UTF-8 text are
each a `MentionError` saying so; at most MAX_CHARS characters are read (`more`: it goes on).
A Shard cell's `@file:` mentions become file context for its turn (`inject_file_mentions`), and
the kernel's completion offers the folder's files after `@file:` (`complete_mention`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from shard_core.contracts import ToolContext
from shard_core.tools.workspace import resolve_in_workspace
from shard_core.types import ToolResult
from shard_core.types.errors import ShardError

if TYPE_CHECKING:
    from shard_core.sdk import Agent

MAX_CHARS = 100_000
MAX_BYTES = 4 * MAX_CHARS  # UTF-8 takes at most 4 bytes a character
MAX_MENTIONS = 8
MAX_LISTED = 20

FILE_MENTION = re.compile(r"(^|[\s(])@file:(\S+?)(?=[\s),;?!]|[.:](?:\s|$)|$)")
"""the Lab composer's pattern (labextension/src/lab/mentions.ts): a sentence's final `.`, `?`,
`,` or `)` is not part of the path"""


class MentionError(ShardError):
    """An `@file:` mention that cannot be read, and which kind of refusal it is."""

    def __init__(self, message: str, kind: Literal["empty", "outside", "missing", "binary"]):
        super().__init__(message)
        self.message = message
        self.kind = kind


@dataclass(frozen=True)
class MentionedFile:
    path: str
    text: str
    more: bool

    @property
    def shown(self) -> str:
        return f"{self.text}\n… (the file goes on: not sent)" if self.more else self.text


def file_mentions(text: str) -> list[str]:
    """The distinct `@file:` paths of a prompt, in order."""
    found: list[str] = []
    for match in FILE_MENTION.finditer(text):
        if match.group(2) not in found:
            found.append(match.group(2))
    return found


def read_mention(path: str, cwd: Path, agent_id: str = "") -> MentionedFile:
    if not path.strip():
        raise MentionError("send path, the file relative to the agent's folder", "empty")
    ctx = ToolContext(cwd=cwd, roots=[cwd], agent_id=agent_id, session_id="", call_id="")
    resolved = resolve_in_workspace(path, ctx)
    if isinstance(resolved, ToolResult):
        target = resolved.details.get("path")
        why = f"@file:{path} is outside the agent's folder {cwd}"
        raise MentionError(f"{why} (it resolves to {target})" if target else why, "outside")
    if not resolved.is_file():
        raise MentionError(f"there is no text file {path} in the agent's folder", "missing")
    with resolved.open("rb") as handle:
        data = handle.read(MAX_BYTES + 1)
    cut = len(data) > MAX_BYTES  # a character split at the cut is dropped, not refused
    try:
        text = data[:MAX_BYTES].decode("utf-8", errors="ignore" if cut else "strict")
    except UnicodeDecodeError:
        raise MentionError(f"{path} is not a text file (not UTF-8)", "binary") from None
    return MentionedFile(path, text[:MAX_CHARS], len(text) > MAX_CHARS or cut)


def file_completions(partial: str, cwd: Path) -> list[str]:
    """`@file:` completions of `partial` (a path typed so far): the entries of its folder inside
    `cwd` that start with its last part, folders with a `/`; hidden entries and anything outside
    the folder are not offered."""
    folder, _, start = partial.rpartition("/")
    base = (cwd / folder).resolve() if folder else cwd.resolve()
    if not base.is_relative_to(cwd.resolve()) or not base.is_dir():
        return []
    try:
        entries = sorted(os.scandir(base), key=lambda e: e.name)
    except OSError:
        return []
    prefix = f"{folder}/" if folder else ""
    return [
        f"@file:{prefix}{e.name}{'/' if e.is_dir() else ''}"
        for e in entries
        if e.name.startswith(start) and not e.name.startswith(".")
    ][:MAX_LISTED]


def inject_file_mentions(agent: Agent, text: str) -> int:
    """A Shard cell's `@file:` mentions as file context for its turn, each labelled `@file:PATH`
    as the Lab chat sends it; all are read before any is injected, so one refused (`MentionError`)
    sends none and starts no turn. Returns how many were injected."""
    paths = file_mentions(text)
    if len(paths) > MAX_MENTIONS:
        raise MentionError(f"at most {MAX_MENTIONS} @file: mentions go with one prompt", "empty")
    cwd = agent.session.config.cwd
    found = [read_mention(path, cwd, agent.agent_id) for path in paths]
    for mention in found:
        agent.inject(mention.shown, "file", f"@file:{mention.path}")
    return len(found)


MENTION_WORD = re.compile(r"(^|[\s(])(@[A-Za-z]*:?\S*)$")


def complete_mention(prefix: str, cwd: Path) -> tuple[list[str], int] | None:
    """The completions of an `@` word that ends `prefix` in a Shard cell (`@` offers `@file:`,
    `@file:PART` the folder's entries) and where the word starts; None when there is none."""
    match = MENTION_WORD.search(prefix)
    if match is None:
        return None
    word, start = match.group(2), match.start(2)
    if word.startswith("@file:"):
        return file_completions(word.removeprefix("@file:"), cwd), start
    return (["@file:"] if "@file:".startswith(word) else []), start
