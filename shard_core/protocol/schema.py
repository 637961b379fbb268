"""JSON Schema export of every wire type, the source the TypeScript types are generated from.

`python -m shard_core.protocol.schema schema/` rewrites the checked-in files; a test fails when
the models and the files drift.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from shard_core.protocol.commands import Command, Reply, SlashCommandInfo
from shard_core.protocol.events import Event, EventBatch
from shard_core.protocol.link import LinkConstants
from shard_core.protocol.orchestrator import AgentInfo, OrchestratorCommand, OrchestratorEvent
from shard_core.protocol.review import ChangesReview
from shard_core.types import (
    ContentBlock,
    Decision,
    Message,
    NormalizedBlock,
    RenderDescriptor,
    SessionEntry,
    ToolResult,
    Usage,
)

WIRE_TYPES: dict[str, Any] = {
    "content-block": ContentBlock,
    "message": Message,
    "tool-result": ToolResult,
    "render-descriptor": RenderDescriptor,
    "session-entry": SessionEntry,
    "normalized-block": NormalizedBlock,
    "usage": Usage,
    "decision": Decision,
    "event": Event,
    "event-batch": EventBatch,
    "command": Command,
    "reply": Reply,
    "slash-command": SlashCommandInfo,
    "agent-info": AgentInfo,
    "orchestrator-command": OrchestratorCommand,
    "orchestrator-event": OrchestratorEvent,
    "link-constants": LinkConstants,
    "changes-review": ChangesReview,
}


def export_schemas() -> dict[str, dict[str, Any]]:
    """File name → JSON Schema, in serialization mode (what is actually on the wire)."""
    out: dict[str, dict[str, Any]] = {}
    for name, tp in WIRE_TYPES.items():
        schema = TypeAdapter(tp).json_schema(mode="serialization")
        schema["$id"] = f"https://shard.invalid/schema/{name}.json"
        schema.setdefault("title", name)
        out[f"{name}.json"] = schema
    return out


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def write_schemas(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for filename, schema in export_schemas().items():
        path = folder / filename
        path.write_text(render(schema), encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    folder = Path(args[0] if args else "schema")
    for path in write_schemas(folder):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
