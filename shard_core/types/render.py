"""RenderDescriptor: the closed, versioned set of things a client knows how to draw.

Tools return descriptors instead of HTML; every client (terminal, widget, Lab panel) ships one
renderer per kind. A new kind is additive: it gets a new `kind` and clients that do not know it
fall back to its text form. `version` lets a kind's shape grow without breaking old readers.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from shard_core.types.base import WireModel

RENDER_VERSION = 1


class TextDescriptor(WireModel):
    kind: Literal["text"] = "text"
    version: int = RENDER_VERSION
    text: str
    format: Literal["plain", "markdown", "code"] = "plain"
    language: str | None = None


class KvPair(WireModel):
    k: str
    v: str


class KvDescriptor(WireModel):
    kind: Literal["kv"] = "kv"
    version: int = RENDER_VERSION
    pairs: list[KvPair]


class Hunk(WireModel):
    """One unified-diff hunk; `lines` keep their ' ', '+' or '-' prefix."""

    old_start: int = Field(ge=0)
    old_lines: int = Field(ge=0)
    new_start: int = Field(ge=0)
    new_lines: int = Field(ge=0)
    lines: list[str]


class DiffDescriptor(WireModel):
    kind: Literal["diff"] = "diff"
    version: int = RENDER_VERSION
    path: str
    hunks: list[Hunk]
    status: Literal["created", "modified", "deleted"] = "modified"


class TreeNode(WireModel):
    label: str
    children: list[TreeNode] = Field(default_factory=lambda: list[TreeNode]())
    is_dir: bool = False


class TreeDescriptor(WireModel):
    kind: Literal["tree"] = "tree"
    version: int = RENDER_VERSION
    root: TreeNode


class ProgressDescriptor(WireModel):
    kind: Literal["progress"] = "progress"
    version: int = RENDER_VERSION
    label: str
    current: float = Field(ge=0)
    total: float | None = Field(default=None, ge=0)


class StatusDescriptor(WireModel):
    kind: Literal["status"] = "status"
    version: int = RENDER_VERSION
    label: str
    tone: Literal["info", "warn", "error", "success"] = "info"


class TerminalDescriptor(WireModel):
    """A terminal's screen as the agent last read it; `server_terminal` names the Jupyter
    server's terminal when it is one (a client offers "Open in Lab")."""

    kind: Literal["terminal"] = "terminal"
    version: int = RENDER_VERSION
    terminal_id: str
    name: str
    command: str
    state: str
    screen: str
    server_terminal: str | None = None


class WebPageDescriptor(WireModel):
    """A page web_fetch read or a hit web_search found: its URL and title, the text folded."""

    kind: Literal["web_page"] = "web_page"
    version: int = RENDER_VERSION
    url: str
    title: str = ""
    text: str = ""


class CellEditDescriptor(WireModel):
    """A change to one notebook cell the agent proposes and a person accepts or rejects.

    Nothing is written when it is made: a client that can reach the open notebook applies
    `source` to cell `cell_id` on Accept, but only while the cell still reads `base`; a cell
    changed since (or a `base` of None: the cell was not in the notebook the agent read) is
    diffed again against what it holds now and asked again, never overwritten blindly."""

    kind: Literal["cell_edit"] = "cell_edit"
    version: int = RENDER_VERSION
    proposal_id: str = Field(min_length=1, max_length=80)
    path: str = Field(description="the notebook as the agent names it (relative to its cwd)")
    file: str = Field(description="the notebook's absolute path, for clients that open it")
    cell_id: str = Field(min_length=1, max_length=64)
    cell_type: Literal["code", "markdown", "raw"] = "code"
    base: str | None = Field(description="the cell's source the proposal was made against")
    source: str = Field(description="the cell's whole proposed source")
    hunks: list[Hunk] = Field(description="base -> source (empty base when base is None)")
    summary: str = Field(default="", max_length=2000, description="why, in a sentence or two")


RenderDescriptor = Annotated[
    TextDescriptor
    | KvDescriptor
    | DiffDescriptor
    | TreeDescriptor
    | ProgressDescriptor
    | StatusDescriptor
    | TerminalDescriptor
    | WebPageDescriptor
    | CellEditDescriptor,
    Field(discriminator="kind"),
]
