"""An MCP `CallToolResult` as a ToolResult: content blocks for the model, descriptors for people.

Text stays text; PNG/JPEG/GIF/WebP images become image blocks; a resource link or an embedded
resource becomes a line the model can act on (and a key/value card); audio and other binaries
are named, not inlined. Structured content with no content blocks is shown as JSON. The text is
bounded: what is left out is said, never silently dropped. Nothing in a result is ever treated
as an instruction to Shard: it is data for the model, like any tool's output.
"""

from __future__ import annotations

import json
from typing import Any

from shard_core.types import (
    ImageBlock,
    KvDescriptor,
    KvPair,
    RenderDescriptor,
    StatusDescriptor,
    TextBlock,
    TextDescriptor,
    ToolResult,
)
from shard_core.types.content import ResultContent

MAX_TEXT = 100_000
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})


def to_tool_result(result: Any, tool: str, server: str) -> ToolResult:
    content: list[ResultContent] = []
    links: list[KvPair] = []
    blocks: list[Any] = list(result.content or [])
    for block in blocks:
        content.extend(_block(block, links))
    if not content and result.structured_content is not None:
        content.append(TextBlock(text=json.dumps(result.structured_content, indent=2)))
    content = _bounded(content)
    text = "\n".join(b.text for b in content if isinstance(b, TextBlock))
    render: list[RenderDescriptor] = []
    if result.is_error:
        label = f"{tool} reported an error" + (f": {text[:300]}" if text else "")
        render.append(StatusDescriptor(label=label, tone="error"))
    elif text:
        render.append(TextDescriptor(text=text[:20_000]))
    if links:
        render.append(KvDescriptor(pairs=links))
    if not content:
        content = [TextBlock(text="(the tool returned no content)")]
    return ToolResult(
        content=content,
        is_error=bool(result.is_error),
        render=render,
        details={"mcp": {"server": server, "tool": tool}},
    )


def _block(block: Any, links: list[KvPair]) -> list[ResultContent]:
    kind = getattr(block, "type", None)
    if kind == "text":
        return [TextBlock(text=block.text)]
    if kind == "image":
        if block.mime_type in IMAGE_TYPES:
            return [ImageBlock(media_type=block.mime_type, data=block.data)]
        return [TextBlock(text=f"[image {block.mime_type}: not shown]")]
    if kind == "audio":
        return [TextBlock(text=f"[audio {block.mime_type}, {len(block.data) * 3 // 4} bytes]")]
    if kind == "resource_link":
        links.append(KvPair(k=block.name or "resource", v=str(block.uri)))
        mime = f" ({block.mime_type})" if block.mime_type else ""
        return [TextBlock(text=f"[resource link] {block.name}: {block.uri}{mime}")]
    if kind == "resource":
        inner = block.resource
        links.append(KvPair(k="resource", v=str(inner.uri)))
        if getattr(inner, "text", None) is not None:
            return [TextBlock(text=f"[resource {inner.uri}]\n{inner.text}")]
        size = len(getattr(inner, "blob", "") or "") * 3 // 4
        return [
            TextBlock(text=f"[resource {inner.uri}: {inner.mime_type or 'binary'}, {size} bytes]")
        ]
    return [TextBlock(text=f"[{kind or 'unknown'} content: not shown]")]


def _bounded(content: list[ResultContent]) -> list[ResultContent]:
    kept: list[ResultContent] = []
    room = MAX_TEXT
    cut = 0
    for block in content:
        if isinstance(block, TextBlock):
            if room <= 0:
                cut += len(block.text)
                continue
            if len(block.text) > room:
                cut += len(block.text) - room
                block = TextBlock(text=block.text[:room])
            room -= len(block.text)
        kept.append(block)
    if cut:
        kept.append(TextBlock(text=f"[{cut} more characters of this result were left out]"))
    return kept
