"""The review of what a turn or a session changed, with what a client needs to act on it: each
file's hunks (numbered from 1, as a `rewind` command's `hunk` names them), a notebook cell by
cell (its `cell` id), and the turn's entry id (its `target`). A `diff` reply carries it in
`data.review`, beside the render descriptors any client can draw without controls."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from shard_core.types import Hunk, WireModel

ChangeStatus = Literal["created", "modified", "deleted"]


class ReviewCell(WireModel):
    cell_id: str
    cell_type: str
    status: ChangeStatus
    hunks: list[Hunk] = Field(default_factory=list[Hunk], description="the source's diff")
    outputs: str = Field(default="", description="'outputs: 1 output: stream -> none' if changed")


class ReviewFile(WireModel):
    path: str = Field(description="relative to the agent's workspace")
    status: ChangeStatus
    hunks: list[Hunk] = Field(default_factory=list[Hunk])
    cells: list[ReviewCell] | None = Field(
        default=None, description="a notebook: its changed cells, instead of hunks"
    )
    note: str = Field(default="", description="why there is no diff (binary, not kept)")
    added: int = 0
    removed: int = 0


class ChangesReview(WireModel):
    type: Literal["changes_review"] = "changes_review"
    title: str
    turn: int | None = Field(default=None, description="the turn reviewed; None: the session")
    target: str | None = Field(
        default=None, description="the turn's entry id: what a revert of its parts names"
    )
    files: list[ReviewFile] = Field(default_factory=list[ReviewFile])
