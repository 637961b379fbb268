"""Review: everything a turn (or the whole session) changed, file by file, and reverting a part.

Each file shows its net change over the span (the first `before` to the last `after`): a text
diff in hunks, a notebook cell by cell (by cell id: source diffs, outputs summarised, never the
JSON), a binary file by its sizes. `descriptors` renders it as the closed descriptor set every
client already draws (a `diff` per file or cell, `text` for the rest); `markdown` is the same for
a cell output or a terminal. Reverting a file is a rewind of that file; reverting a hunk or a
notebook cell writes the file with that part as it was, and is checkpointed like any rewind.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Literal

from shard_core.capabilities.checkpoints import notebook
from shard_core.capabilities.checkpoints.rewind import (
    FilePlan,
    Rewinder,
    RewindResult,
    Version,
)
from shard_core.capabilities.checkpoints.store import BlobError, BlobStore, blob_id
from shard_core.capabilities.checkpoints.timeline import RewindError, files_checkpoints
from shard_core.capabilities.checkpoints.workspace import FileState
from shard_core.protocol.review import ChangesReview, ReviewCell, ReviewFile
from shard_core.tools.diffs import diff_texts
from shard_core.types import DiffDescriptor, Hunk, RenderDescriptor, SessionEntry, TextDescriptor

Status = Literal["created", "modified", "deleted"]


@dataclass
class CellReview:
    cell_id: str
    cell_type: str
    status: Status
    hunks: list[Hunk]
    outputs: str = ""
    """'1 output: stream → 2 outputs: stream, error' when the outputs changed"""


@dataclass
class FileReview:
    path: str
    status: Status
    before: Version
    after: Version
    hunks: list[Hunk] = field(default_factory=list[Hunk])
    cells: list[CellReview] | None = None
    note: str = ""
    """binary sizes, a blob that cannot be read, content not kept"""
    added: int = 0
    removed: int = 0


def net_changes(entries: list[SessionEntry]) -> dict[str, tuple[Version, Version, str | None]]:
    first: dict[str, Version] = {}
    last: dict[str, Version] = {}
    notes: dict[str, str | None] = {}
    for _, checkpoint in files_checkpoints(entries):
        for c in checkpoint.changes:
            first.setdefault(c.path, Version(c.existed_before, c.before))
            last[c.path] = Version(c.exists_after, c.after)
            notes[c.path] = notes.get(c.path) or c.note
    return {
        p: (first[p], last[p], notes[p])
        for p in sorted(first)
        if first[p] != last[p] or (first[p].blob is None and first[p].exists)
    }


def _text(data: bytes | None) -> str | None:
    if data is None:
        return ""
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _read(blobs: BlobStore, version: Version) -> bytes | None:
    return blobs.get(version.blob) if version.exists and version.blob is not None else None


def review_file(blobs: BlobStore, path: str, before: Version, after: Version) -> FileReview:
    status: Status = (
        "created" if not before.exists else "deleted" if not after.exists else "modified"
    )
    found = FileReview(path, status, before, after)
    if (before.exists and before.blob is None) or (after.exists and after.blob is None):
        found.note = "content not kept (too big or unreadable): no diff"
        return found
    try:
        old, new = _read(blobs, before), _read(blobs, after)
    except BlobError as exc:
        found.note = str(exc)
        return found
    if path.endswith(".ipynb"):
        cells = _cells(old, new)
        if cells is not None:
            found.cells = cells
            found.added = sum(1 for c in cells if c.status == "created")
            found.removed = sum(1 for c in cells if c.status == "deleted")
            return found
    old_text, new_text = _text(old), _text(new)
    if old_text is None or new_text is None:
        found.note = f"binary file: {len(old or b''):,} → {len(new or b''):,} bytes"
        return found
    diff = diff_texts(old_text, new_text)
    found.hunks, found.added, found.removed = diff.hunks, diff.added, diff.removed
    return found


def _cells(old: bytes | None, new: bytes | None) -> list[CellReview] | None:
    a = notebook.parse(old) if old is not None else notebook.EMPTY
    b = notebook.parse(new) if new is not None else notebook.EMPTY
    if a is None or b is None:
        return None
    before, after = notebook.cells(a), notebook.cells(b)
    found: list[CellReview] = []
    for cid in dict.fromkeys([*after, *before]):
        x, y = before.get(cid), after.get(cid)
        if json.dumps(x, sort_keys=True) == json.dumps(y, sort_keys=True):
            continue
        status: Status = "created" if x is None else "deleted" if y is None else "modified"
        kind = str((y or x or {}).get("cell_type", "code"))
        hunks = diff_texts(notebook.source(x), notebook.source(y)).hunks
        was, now = notebook.outputs_summary(x), notebook.outputs_summary(y)
        outputs = "" if was == now else f"outputs: {was or 'none'} → {now or 'none'}"
        found.append(CellReview(cid, kind, status, hunks, outputs))
    return found


def review(blobs: BlobStore, entries: list[SessionEntry]) -> list[FileReview]:
    return [review_file(blobs, p, b, a) for p, (b, a, _) in net_changes(entries).items()]


# ---------------------------------------------------------------- rendering


def descriptors(title: str, files: list[FileReview]) -> list[RenderDescriptor]:
    """The review as descriptors any Shard client renders (diff per file or cell, text)."""
    out: list[RenderDescriptor] = [TextDescriptor(text=title, format="markdown")]
    for f in files:
        if f.cells is not None:
            out.append(
                TextDescriptor(text=f"**{f.path}** ({f.status}, notebook)", format="markdown")
            )
            for c in f.cells:
                label = f"{f.path} · cell {c.cell_id} ({c.cell_type})"
                out.append(DiffDescriptor(path=label, hunks=c.hunks, status=c.status))
                if c.outputs:
                    out.append(TextDescriptor(text=c.outputs))
        elif f.note:
            out.append(TextDescriptor(text=f"{f.path} ({f.status}): {f.note}"))
        else:
            out.append(DiffDescriptor(path=f.path, hunks=f.hunks, status=f.status))
    return out


def wire(
    title: str, files: list[FileReview], turn: int | None = None, target: str | None = None
) -> ChangesReview:
    """The review with what a client's accept/revert controls name (hunks, cell ids)."""
    return ChangesReview(
        title=title,
        turn=turn,
        target=target,
        files=[
            ReviewFile(
                path=f.path,
                status=f.status,
                hunks=f.hunks,
                cells=None
                if f.cells is None
                else [
                    ReviewCell(
                        cell_id=c.cell_id,
                        cell_type=c.cell_type,
                        status=c.status,
                        hunks=c.hunks,
                        outputs=c.outputs,
                    )
                    for c in f.cells
                ],
                note=f.note,
                added=f.added,
                removed=f.removed,
            )
            for f in files
        ],
    )


def markdown(title: str, files: list[FileReview]) -> str:
    if not files:
        return f"{title}\n\nNo file changes."
    parts = [title, ""]
    for f in files:
        if f.cells is not None:
            parts.append(f"**{f.path}** ({f.status}, notebook: {len(f.cells)} cell(s) changed)")
            for c in f.cells:
                parts.append(f"- cell `{c.cell_id}` ({c.cell_type}, {c.status})")
                if c.hunks:
                    parts.append(_diff_block(c.hunks))
                if c.outputs:
                    parts.append(f"  {c.outputs}")
            continue
        head = f"**{f.path}** ({f.status}"
        head += f", +{f.added} -{f.removed})" if not f.note else f"): {f.note}"
        parts.append(head)
        if f.hunks:
            parts.append(_diff_block(f.hunks, numbered=True))
    return "\n".join(parts)


def _diff_block(hunks: list[Hunk], *, numbered: bool = False) -> str:
    lines = ["```diff"]
    for n, h in enumerate(hunks, 1):
        tag = f"  (hunk {n})" if numbered else ""
        lines.append(f"@@ -{h.old_start},{h.old_lines} +{h.new_start},{h.new_lines} @@{tag}")
        lines.extend(h.lines)
    lines.append("```")
    return "\n".join(lines)


# ---------------------------------------------------------------- reverting a part


def _split(text: str) -> list[str]:
    parts = text.split("\n")
    return [*(p + "\n" for p in parts[:-1]), *([parts[-1]] if parts[-1] else [])]


def _start(start: int, count: int) -> int:
    return start - 1 if count else start


def revert_hunk(
    rewinder: Rewinder, entries: list[SessionEntry], path: str, number: int, *, force: bool
) -> RewindResult:
    """Put hunk `number` (1-based, as `markdown` numbers them) of `path` back as it was."""
    changes = net_changes(entries)
    if path not in changes:
        raise RewindError(f"{path} was not changed there; nothing to revert")
    before, after, _ = changes[path]
    blobs = rewinder.blobs
    found = review_file(blobs, path, before, after)
    if found.cells is not None or found.note:
        what = "a notebook: revert a cell" if found.cells is not None else found.note
        raise RewindError(f"{path} has no hunks to revert ({what}); revert the whole file")
    if not 1 <= number <= len(found.hunks):
        raise RewindError(f"{path} has hunks 1 to {len(found.hunks)}, not {number}")
    hunk = found.hunks[number - 1]
    old_lines = _split(_text(_read(blobs, before)) or "")
    new_lines = _split(_text(_read(blobs, after)) or "")
    current = rewinder.workspace.state(path)
    if current.exists and current.blob is None:
        raise RewindError(f"{path} cannot be read now ({current.note})")
    now_text = _text(_read(blobs, Version(current.exists, current.blob)))
    if now_text is None:
        raise RewindError(f"{path} is binary now: revert the whole file")
    now = _split(now_text)
    at = _start(hunk.new_start, hunk.new_lines)
    block = new_lines[at : at + hunk.new_lines]
    offset = _locate(now, block, at)
    if offset is None:
        if not force:
            raise RewindError(
                f"hunk {number} of {path} no longer applies: the file changed there since"
            )
        offset = at
    old_at = _start(hunk.old_start, hunk.old_lines)
    restored = [*now[:offset], *old_lines[old_at : old_at + hunk.old_lines]]
    restored += now[offset + len(block) :]
    return _write_part(rewinder, path, "".join(restored).encode("utf-8"), current, entries)


def _locate(lines: list[str], block: list[str], near: int) -> int | None:
    if lines[near : near + len(block)] == block:
        return near
    if not block:
        return None
    hits = [i for i in range(len(lines) - len(block) + 1) if lines[i : i + len(block)] == block]
    return hits[0] if len(hits) == 1 else None


def revert_cell(
    rewinder: Rewinder, entries: list[SessionEntry], path: str, cell_id: str, *, force: bool
) -> RewindResult:
    """Put one notebook cell (by id) back as it was before the span."""
    changes = net_changes(entries)
    if path not in changes:
        raise RewindError(f"{path} was not changed there; nothing to revert")
    before, after, _ = changes[path]
    blobs = rewinder.blobs
    try:
        old, new = _read(blobs, before), _read(blobs, after)
    except BlobError as exc:
        raise RewindError(str(exc)) from None
    old_nb = notebook.parse(old) if old is not None else notebook.EMPTY
    new_nb = notebook.parse(new) if new is not None else notebook.EMPTY
    current = rewinder.workspace.state(path)
    now_nb = notebook.parse(_read(blobs, Version(current.exists, current.blob)))
    if old_nb is None or new_nb is None or now_nb is None:
        raise RewindError(f"{path} is not a notebook with cell ids: revert the whole file")
    was, left = notebook.cells(old_nb).get(cell_id), notebook.cells(new_nb).get(cell_id)
    if was is None and left is None:
        raise RewindError(f"cell {cell_id} of {path} was not changed there")
    now_cells = notebook.cells(now_nb)
    same = json.dumps(now_cells.get(cell_id), sort_keys=True) == json.dumps(left, sort_keys=True)
    if not same and not force:
        raise RewindError(
            f"cell {cell_id} of {path} changed since the agent's edit; use --force to put it "
            "back anyway"
        )
    order = list(now_cells)
    if cell_id not in order and was is not None:
        earlier = list(notebook.cells(old_nb))
        prior = earlier[: earlier.index(cell_id)]
        anchor = next((p for p in reversed(prior) if p in order), None)
        order.insert(order.index(anchor) + 1 if anchor else 0, cell_id)
    merged = dict(now_nb)
    merged["cells"] = [
        cell
        for cid in order
        if (cell := (was if cid == cell_id else now_cells.get(cid))) is not None
    ]
    data = (json.dumps(merged, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
    return _write_part(rewinder, path, data, current, entries)


def _write_part(
    rewinder: Rewinder,
    path: str,
    data: bytes,
    current: FileState,
    entries: list[SessionEntry],
) -> RewindResult:
    if unsafe := rewinder.unsafe(path):
        raise RewindError(f"{path} is {unsafe}")
    target = Version(True, blob_id(data))
    plan = FilePlan(path, target, target, current, "restore", "part reverted", data)
    result = RewindResult(entries[0].id if entries else "", "code", [plan])
    return rewinder.apply(result)
