"""The checked-in JSON Schemas match the pydantic models exactly."""

from __future__ import annotations

from pathlib import Path

from shard_core.protocol.schema import export_schemas, render

SCHEMA_DIR = Path(__file__).resolve().parents[3] / "schema"
REGENERATE = "python -m shard_core.protocol.schema schema"


def test_schema_files_match_models() -> None:
    expected = export_schemas()
    on_disk = {p.name for p in SCHEMA_DIR.glob("*.json")}
    assert on_disk == set(expected), f"run: {REGENERATE}"
    stale = [
        name
        for name, schema in expected.items()
        if (SCHEMA_DIR / name).read_text(encoding="utf-8") != render(schema)
    ]
    assert stale == [], f"stale schema files {stale}; run: {REGENERATE}"


def test_every_event_type_is_in_the_schema() -> None:
    from shard_core.protocol.events import EVENT_TYPES

    mapping = export_schemas()["event.json"]["discriminator"]["mapping"]
    assert sorted(mapping) == sorted(EVENT_TYPES)
