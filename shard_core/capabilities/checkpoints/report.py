"""What a rewind did (or would do), in markdown for a cell, a terminal or a REST reply: what was
restored, what a person had changed (the three versions, as diffs), what failed and why."""

from __future__ import annotations

from shard_core.capabilities.checkpoints.rewind import FilePlan, RewindResult, Version
from shard_core.capabilities.checkpoints.store import BlobError, BlobStore
from shard_core.tools.diffs import diff_texts
from shard_core.types import Hunk


def _text(blobs: BlobStore, version: Version) -> str | None:
    if not version.exists:
        return ""
    if version.blob is None:
        return None
    try:
        data = blobs.get(version.blob)
    except BlobError:
        return None
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace")


def _label(version: Version) -> str:
    if not version.exists:
        return "absent"
    return f"blob `{version.blob[:12]}`" if version.blob else "not kept"


def _diff(old: str | None, new: str | None) -> str:
    if old is None or new is None:
        return "(binary or unreadable: no diff)"
    hunks = diff_texts(old, new).hunks
    return _block(hunks) if hunks else "(no difference)"


def _block(hunks: list[Hunk]) -> str:
    lines = ["```diff"]
    for h in hunks:
        lines.append(f"@@ -{h.old_start},{h.old_lines} +{h.new_start},{h.new_lines} @@")
        lines.extend(h.lines)
    return "\n".join([*lines, "```"])


def three_versions(blobs: BlobStore, plan: FilePlan) -> str:
    now = Version(plan.current.exists, plan.current.blob)
    before, agent = _text(blobs, plan.target), _text(blobs, plan.agent)
    current = _text(blobs, now)
    return "\n".join(
        [
            f"**{plan.path}**: {plan.reason}. Three versions:",
            f"- before (what the rewind puts back): {_label(plan.target)}",
            f"- as the agent left it: {_label(plan.agent)}",
            f"- now (a person's edit): {_label(now)}",
            "",
            "What changed since the agent's edit (agent → now):",
            _diff(agent, current),
            "",
            "What the rewind would do to it (now → before):",
            _diff(current, before),
        ]
    )


def describe(result: RewindResult, blobs: BlobStore, again: str) -> str:
    """`again`: the command that repeats this rewind, to which `--force`/`--keep` is added."""
    if result.conflicts and not result.applied:
        parts = [
            f"**Rewind refused: nothing was changed.** {len(result.conflicts)} file(s) changed "
            "since the agent last wrote them; no one's work is overwritten without a choice.",
            "",
        ]
        parts += [three_versions(blobs, p) + "\n" for p in result.conflicts]
        parts.append(
            f"Choose: `{again} --force` puts the earlier version back over these edits; "
            f"`{again} --keep` keeps them and restores the rest."
        )
        failed = [p for p in result.plans if p.action == "failed"]
        if failed:
            parts.append("")
            parts.append(
                "Also not restorable: " + "; ".join(f"{p.path}: {p.reason}" for p in failed)
            )
        return "\n".join(parts)
    lines: list[str] = []
    scope = {"code": "files", "conversation": "conversation", "both": "files and conversation"}
    head = f"**Rewound {scope[result.scope]}** to before entry `{result.to_entry_id}`."
    if result.failed:
        head = (
            f"**Rewound {scope[result.scope]} in part** to before entry `{result.to_entry_id}`: "
            f"{len(result.failed)} file(s) could not be restored."
        )
    lines.append(head)
    if result.restored:
        lines.append("Restored: " + ", ".join(f"`{p}`" for p in result.restored))
    cells = [
        p for p in result.plans if p.action == "restore" and p.reason.startswith("restored cell")
    ]
    for plan in cells:
        lines.append(f"- `{plan.path}`: {plan.reason}")
    unchanged = [p.path for p in result.plans if p.action == "unchanged"]
    if unchanged:
        lines.append("Already as they were: " + ", ".join(f"`{p}`" for p in unchanged))
    if result.kept:
        lines.append("Kept as a person left them: " + ", ".join(f"`{p}`" for p in result.kept))
    for failure in result.failed:
        lines.append(f"- not restored: {failure}")
    if result.scope != "code":
        lines.append("The conversation continues from before that point.")
    if result.scope != "conversation" and not result.plans:
        lines.append("No file was changed after that point.")
    if result.entry_id:
        lines.append(f"Undo with `/rewind undo` (or rewind to before `{result.entry_id}`).")
    return _paragraphs(lines)


def _paragraphs(lines: list[str]) -> str:
    """One paragraph per line (markdown would run them together), list items kept a list."""
    out = ""
    for i, line in enumerate(lines):
        together = line.startswith("- ") and i > 0 and lines[i - 1].startswith("- ")
        out += ("\n" if together else "\n\n") + line if i else line
    return out
