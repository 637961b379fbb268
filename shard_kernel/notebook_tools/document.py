"""NotebookFile: a notebook on disk, loaded for editing and written back by splicing.

Untouched cells, the notebook's metadata and everything outside the `cells` array keep their
exact bytes (spans.py finds them); only new or changed cells are serialised, in the file's own
indentation. A notebook without cell ids (nbformat < 4.5) gets ids inserted into each cell's text
and `nbformat_minor` raised to 5 — the rest of each cell is still left as it was. Every write is
validated against the nbformat schema first and replaces the file atomically.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shard_core.engine.plurals import counted
from shard_core.tools.atomic import write_atomic
from shard_kernel.notebook_tools.spans import CellSpans, cell_spans

Json = dict[str, Any]

_CELL_ID = re.compile(r"^[a-zA-Z0-9-_]{1,64}$")
_MINOR = re.compile(r'("nbformat_minor"\s*:\s*)(\d+)')
_FIRST_KEY_INDENT = re.compile(r"\{\r?\n([ \t]*)\"")


class NotebookError(Exception):
    """A notebook that cannot be read, changed or written; the message is for the model."""


@dataclass
class Cell:
    """One cell: its JSON, and its text in the file while it is unchanged (None once changed)."""

    data: Json
    original: str | None = None

    @property
    def id(self) -> str:
        return str(self.data.get("id", ""))

    @property
    def cell_type(self) -> str:
        return str(self.data.get("cell_type", ""))

    @property
    def source(self) -> str:
        return source_text(self.data.get("source", ""))

    def touch(self) -> None:
        self.original = None


@dataclass
class NotebookFile:
    path: Path
    text: str
    cells: list[Cell]
    top: Json
    """the notebook without its cells (metadata, nbformat, nbformat_minor)"""
    spans: CellSpans | None
    notes: list[str] = field(default_factory=list[str])
    """what loading had to change (ids assigned, format raised), for the tool's result"""

    # ------------------------------------------------------------ load

    @classmethod
    def load(cls, path: Path, *, create: bool = False) -> NotebookFile:
        if not path.exists():
            if not create:
                raise NotebookError(f"{path.name} does not exist")
            return cls._new(path)
        if path.is_dir():
            raise NotebookError(f"{path.name} is a directory")
        try:
            text = path.read_bytes().decode("utf-8")
            data = json.loads(text)
        except (UnicodeDecodeError, ValueError) as exc:
            raise NotebookError(f"{path.name} is not a notebook (not JSON: {exc})") from None
        if not isinstance(data, dict) or not isinstance(data.get("cells", []), list):
            raise NotebookError(f"{path.name} is not a notebook (no list of cells)")
        return cls._parse(path, text, data)

    @classmethod
    def from_json(cls, path: Path, data: Json) -> NotebookFile:
        """A notebook held elsewhere (a shared document); rendering writes it whole."""
        return cls._whole(path, "", json.loads(json.dumps(data)), [])

    @classmethod
    def _new(cls, path: Path) -> NotebookFile:
        import nbformat

        nb = nbformat.v4.new_notebook()
        top = {k: v for k, v in nb.items() if k != "cells"}
        top["nbformat_minor"] = max(int(top["nbformat_minor"]), 5)
        return cls(path, "", [], json.loads(json.dumps(top)), None, ["created a new notebook"])

    @classmethod
    def _parse(cls, path: Path, text: str, data: Json) -> NotebookFile:
        major = data.get("nbformat")
        if major != 4:
            import nbformat

            if not isinstance(major, int) or major < 3:
                raise NotebookError(f"{path.name}: unsupported nbformat {major!r}")
            data = json.loads(json.dumps(nbformat.convert(nbformat.from_dict(data), 4)))
            note = f"converted from nbformat {major} to 4.5 (the whole file is rewritten)"
            return cls._whole(path, text, data, [note])
        spans = cell_spans(text)
        raw_cells: list[Json] = data.get("cells", [])
        if spans is None or len(spans.cells) != len(raw_cells):
            return cls._whole(path, text, data, [])
        cells = [Cell(c, text[a:b]) for c, (a, b) in zip(raw_cells, spans.cells, strict=True)]
        top = {k: v for k, v in data.items() if k != "cells"}
        doc = cls(path, text, cells, top, spans)
        doc._ensure_ids()
        return doc

    @classmethod
    def _whole(cls, path: Path, text: str, data: Json, notes: list[str]) -> NotebookFile:
        cells = [Cell(c) for c in data.get("cells", [])]
        top = {k: v for k, v in data.items() if k != "cells"}
        doc = cls(path, text, cells, top, None, notes)
        doc._ensure_ids()
        return doc

    def _ensure_ids(self) -> None:
        """nbformat 4.5 wants a unique id on every cell: add the missing ones, repair bad ones."""
        seen: set[str] = set()
        added = repaired = 0
        for index, cell in enumerate(self.cells):
            current = cell.data.get("id")
            if isinstance(current, str) and _CELL_ID.match(current) and current not in seen:
                seen.add(current)
                continue
            new = stable_id(index, cell.source, seen)
            seen.add(new)
            cell.data["id"] = new
            if current is None and cell.original is not None:
                cell.original = _insert_id(cell.original, new)
                added += 1
            else:
                cell.touch()
                repaired += 1
        if int(self.top.get("nbformat_minor", 0)) < 5:
            self.notes.append(f"raised nbformat_minor {self.top.get('nbformat_minor')} to 5")
            self.top["nbformat_minor"] = 5
        if added:
            self.notes.append(f"assigned ids to {counted(added, 'cell')} that had none")
        if repaired:
            self.notes.append(f"replaced {counted(repaired, 'duplicate or invalid cell id')}")

    # ------------------------------------------------------------ cells

    def find(self, cell_id: str) -> int:
        for index, cell in enumerate(self.cells):
            if cell.id == cell_id:
                return index
        known = ", ".join(c.id for c in self.cells[:20]) or "none; the notebook is empty"
        more = f" … ({len(self.cells)} cells)" if len(self.cells) > 20 else ""
        raise NotebookError(f"no cell with id {cell_id!r}; cell ids: {known}{more}")

    def ids(self) -> set[str]:
        return {c.id for c in self.cells}

    @property
    def uses_line_lists(self) -> bool:
        """Whether sources are stored as lists of lines (nbformat's own writer) or strings."""
        sources = [c.data.get("source") for c in self.cells]
        return not sources or any(isinstance(s, list) for s in sources)

    def stored_source(self, text: str) -> str | list[str]:
        return text.splitlines(keepends=True) if self.uses_line_lists else text

    # ------------------------------------------------------------ write

    def render(self) -> str:
        if self.spans is None:
            import nbformat

            return nbformat.writes(nbformat.from_dict(self.as_json()))
        spans, text = self.spans, self.text
        lead, between, trail = _separators(text, spans)
        body = between.join(
            c.original or _serialise(c.data, _indent_unit(text)) for c in self.cells
        )
        minor = str(self.top["nbformat_minor"])
        head = _MINOR.sub(lambda m: m.group(1) + minor, text[: spans.open + 1], 1)
        tail = _MINOR.sub(lambda m: m.group(1) + minor, text[spans.close :], 1)
        if not self.cells:
            return head + tail
        return head + lead + body + trail + tail

    def as_json(self) -> Json:
        return {**self.top, "cells": [c.data for c in self.cells]}

    def save(self) -> str:
        """Validate, then replace the file atomically; returns the text written."""
        text = self.render()
        validate_text(text, self.path.name)
        write_atomic(self.path, text.encode("utf-8"))
        self.text = text
        return text


def validate_text(text: str, name: str) -> None:
    import nbformat  # here, not at the top: its schema checker takes seconds to import

    try:
        nb: Any = nbformat.from_dict(json.loads(text))
        nbformat.validate(nb)
    except (ValueError, nbformat.ValidationError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise NotebookError(f"the change would make {name} invalid: {first}") from None
    if (nb.get("nbformat"), nb.get("nbformat_minor", 0)) < (4, 5):
        raise NotebookError(f"{name} would not be nbformat 4.5 or later")


def stable_id(index: int, source: str, taken: set[str]) -> str:
    """The id a cell without one gets: the same on every load of the same file, so the ids
    notebook_read shows for an old notebook are the ones notebook_edit finds and then saves."""
    digest = hashlib.sha1(f"{index}:{source}".encode(), usedforsecurity=False).hexdigest()
    new = digest[:8]
    return new if new not in taken else fresh_id(taken)


def fresh_id(taken: set[str]) -> str:
    while (new := uuid.uuid4().hex[:8]) in taken:
        pass
    return new


def source_text(source: object) -> str:
    if isinstance(source, list):
        return "".join(str(part) for part in source)  # pyright: ignore[reportUnknownVariableType]
    return str(source)


def _insert_id(cell_text: str, new_id: str) -> str:
    """`{"id": "…", <the cell's keys as they were>`: the id goes first, nothing else moves."""
    quote = cell_text.find('"')
    gap = cell_text[1:quote]
    return "{" + gap + json.dumps("id") + ": " + json.dumps(new_id) + "," + cell_text[1:]


def _indent_unit(text: str) -> str | None:
    """The file's indentation step (what `nbformat` writes is one space), None when compact."""
    match = _FIRST_KEY_INDENT.match(text)
    return match.group(1) if match else None


def _separators(text: str, spans: CellSpans) -> tuple[str, str, str]:
    """What goes before the first cell, between two cells and after the last, as in the file."""
    unit = _indent_unit(text)
    if not spans.cells:
        if unit is None:
            return "", ", ", ""
        return "\n" + unit * 2, ",\n" + unit * 2, "\n" + unit
    (first, first_end), last = spans.cells[0], spans.cells[-1][1]
    lead, trail = text[spans.open + 1 : first], text[last : spans.close]
    if len(spans.cells) > 1:
        between = text[first_end : spans.cells[1][0]]
    else:
        between = "," + lead if "\n" in lead else ", "
    return lead, between, trail


def _serialise(cell: Json, unit: str | None) -> str:
    text = json.dumps(cell, indent=unit, sort_keys=True, ensure_ascii=False)
    return text.replace("\n", "\n" + unit * 2) if unit is not None else text
