"""ReadTool: a text file's lines, numbered like `cat -n`, bounded in lines and bytes."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path
from typing import Literal

from shard_core.contracts import ToolContext
from shard_core.contracts.access import ToolAccess
from shard_core.engine.plurals import counted
from shard_core.tools.encoding import decode_text, split_lines
from shard_core.tools.guard import guarded
from shard_core.tools.host_files import editor_text
from shard_core.tools.shapes import BUILTIN_ACCESS
from shard_core.tools.workspace import display_path, resolve_in_workspace
from shard_core.types import ImageBlock, JsonObject, TextBlock, ToolResult
from shard_core.types.render import TextDescriptor

DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000
MAX_OUTPUT_BYTES = 50_000
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_IMAGE_BYTES = 5 * 1024 * 1024

ImageType = Literal["image/png", "image/jpeg", "image/gif", "image/webp"]

LANGUAGES = {
    "py": "python", "pyi": "python", "js": "javascript", "mjs": "javascript", "jsx": "jsx",
    "ts": "typescript", "tsx": "tsx", "json": "json", "md": "markdown", "toml": "toml",
    "yaml": "yaml", "yml": "yaml", "sh": "bash", "bash": "bash", "rs": "rust", "go": "go",
    "c": "c", "h": "c", "cpp": "cpp", "hpp": "cpp", "java": "java", "rb": "ruby",
    "html": "html", "css": "css", "sql": "sql", "ipynb": "json", "txt": "text",
}  # fmt: skip


class ReadTool:
    name: str = "read"
    description: str = (
        "Read a text file from the workspace. Lines come numbered like `cat -n` "
        f"(number, tab, text). Reads at most {DEFAULT_LIMIT} lines (use offset/limit to page) "
        f"and about {MAX_OUTPUT_BYTES // 1000} KB per call; lines longer than {MAX_LINE_CHARS} "
        "characters are cut. Binary files are refused; PNG/JPEG/GIF/WebP images come back "
        "as images."
    )
    input_schema: JsonObject = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path, relative to the cwd."},
            "offset": {"type": "integer", "minimum": 1, "description": "First line (1-based)."},
            "limit": {"type": "integer", "minimum": 1, "description": "Lines to read."},
        },
        "required": ["path"],
        "additionalProperties": False,
    }
    read_only: bool = True
    kind: str = "read"  # ToolKind: what an ACP host shows
    access: ToolAccess = BUILTIN_ACCESS["read"]

    @guarded
    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        target = resolve_in_workspace(input["path"], ctx)
        if isinstance(target, ToolResult):
            return target
        shown = display_path(target, ctx)
        if target.is_dir():
            return ToolResult.error(f"{shown} is a directory; use ls to list it", path=shown)
        try:
            offset, limit = int(input.get("offset", 1)), input.get("limit")
            editor = await editor_text(ctx, target)
            return await asyncio.to_thread(_read_file, target, shown, offset, limit, editor)
        except FileNotFoundError:
            return ToolResult.error(f"file not found: {shown}", path=shown)
        except OSError as exc:
            return ToolResult.error(f"cannot read {shown}: {exc.strerror or exc}", path=shown)


def _read_file(
    target: Path, shown: str, offset: int, limit: int | None, editor: str | None = None
) -> ToolResult:
    """Blocking; run in a thread. `editor`: the editor's text of a text file (its buffer)."""
    size = target.stat().st_size
    if size > MAX_FILE_BYTES:
        return ToolResult.error(
            f"{shown} is too large to read ({size} bytes); use grep, or bash with head/sed",
            path=shown,
            bytes=size,
        )
    data = target.read_bytes()
    image = _image_type(data)
    if image is not None:
        return _image_result(data, image, shown)
    decoded = decode_text(data)
    if decoded is None:
        return ToolResult.error(f"binary file ({size} bytes): {shown}", path=shown, bytes=size)
    lines = split_lines(decoded.text if editor is None else editor)
    if offset > max(len(lines), 1):
        return ToolResult.error(
            f"offset {offset} is past the end of {shown} ({counted(len(lines), 'line')})",
            path=shown,
        )
    end = min(len(lines), offset - 1 + int(limit or DEFAULT_LIMIT))
    body, last = _number(lines, offset, end)
    note = _continuation(offset, last, len(lines), cut=last < end)
    language = LANGUAGES.get(target.suffix.lstrip(".").lower())
    return ToolResult.ok(
        (body or "(empty file)") + note,
        TextDescriptor(text=body, format="code", language=language),
        path=shown,
        bytes=size,
        encoding=decoded.encoding,
        total_lines=len(lines),
        start_line=offset,
        end_line=last,
        truncated=bool(note),
    )


def _number(lines: list[str], first: int, last: int) -> tuple[str, int]:
    """Lines first..last numbered, stopping early at the byte cap; returns the last line shown."""
    out: list[str] = []
    used = 0
    shown = first - 1
    for number in range(first, last + 1):
        text = lines[number - 1]
        if len(text) > MAX_LINE_CHARS:
            text = f"{text[:MAX_LINE_CHARS]}… [line truncated: {len(text)} chars]"
        row = f"{number:>6}\t{text}"
        used += len(row.encode()) + 1
        if used > MAX_OUTPUT_BYTES and out:
            break
        out.append(row)
        shown = number
    return "\n".join(out), shown


def _continuation(first: int, last: int, total: int, *, cut: bool) -> str:
    if last >= total:
        return ""
    why = f"truncated at {MAX_OUTPUT_BYTES // 1000} KB: " if cut else ""
    return f"\n\n[{why}showing lines {first}-{last} of {total}; use offset={last + 1} to continue]"


def _image_type(data: bytes) -> ImageType | None:
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _image_result(data: bytes, media_type: ImageType, shown: str) -> ToolResult:
    if len(data) > MAX_IMAGE_BYTES:
        return ToolResult.error(f"image too large ({len(data)} bytes): {shown}", path=shown)
    summary = f"{shown}: {media_type}, {len(data)} bytes"
    return ToolResult(
        content=[
            TextBlock(text=summary),
            ImageBlock(media_type=media_type, data=base64.b64encode(data).decode("ascii")),
        ],
        render=[TextDescriptor(text=summary)],
        details={"path": shown, "bytes": len(data), "media_type": media_type},
    )
