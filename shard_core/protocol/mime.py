"""The MIME types of outputs that stay in a notebook, and the render payload they carry.

`application/vnd.shard.render+json` is `{"version": 1, "descriptors": [RenderDescriptor…]}` plus,
by use: `event` (the event the output shows: a tool result), or `transcript` (an agent widget's
events, so a saved notebook can draw the whole conversation without a kernel; docs/PROTOCOL.md §4).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

RENDER_MIME = "application/vnd.shard.render+json"
PERMISSION_MIME = "application/vnd.shard.permission+json"
RENDER_PAYLOAD_VERSION = 1


def render_payload(descriptors: Iterable[BaseModel], **extra: Any) -> dict[str, Any]:
    """The render MIME's value: the descriptors as wire JSON, then any `extra` fields."""
    return {
        "version": RENDER_PAYLOAD_VERSION,
        "descriptors": [d.model_dump(mode="json") for d in descriptors],
        **extra,
    }
