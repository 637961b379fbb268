"""Reading and writing text through the person's editor (`ctx.files`), when a surface has one.

An ACP host that offers `fs/read_text_file` sees its unsaved buffers read and its buffers
changed by `edit` and `write`. Images and binary files are always read from disk; an editor
that cannot answer (or does not offer a method) leaves the disk to do it, as without a host.
"""

from __future__ import annotations

import logging
from pathlib import Path

from shard_core.contracts import ToolContext

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})
_log = logging.getLogger(__name__)


async def editor_text(ctx: ToolContext, path: Path) -> str | None:
    """The editor's text of `path`, or None: read the disk."""
    if ctx.files is None or path.suffix.lower() in IMAGE_SUFFIXES or not path.is_file():
        return None
    try:
        return await ctx.files.read_text(path)
    except Exception as exc:  # the editor failed: the disk still has the file
        _log.warning("reading %s through the editor failed: %s", path, exc)
        return None


async def editor_write(ctx: ToolContext, path: Path, text: str) -> bool:
    """Write through the editor; False when it does not, so the caller writes the disk. A
    failure the editor reports is raised (the caller makes it the tool's error)."""
    if ctx.files is None:
        return False
    return await ctx.files.write_text(path, text)
