"""Every wire type survives model → JSON → model, for values generated from its own schema."""

from __future__ import annotations

import copy
import functools
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from pydantic import TypeAdapter, ValidationError

from shard_core.protocol.schema import WIRE_TYPES
from shard_core.types import SessionEntry, TreeDescriptor, TreeNode


def _unroll_tree(schema: dict[str, Any]) -> dict[str, Any]:
    """hypothesis-jsonschema cannot follow recursive $refs: allow two levels of TreeNode."""
    schema = copy.deepcopy(schema)
    defs = schema.get("$defs", {})
    if "TreeNode" in defs:
        leaf = copy.deepcopy(defs["TreeNode"])
        leaf["properties"]["children"] = {"type": "array", "maxItems": 0}
        mid = copy.deepcopy(defs["TreeNode"])
        mid["properties"]["children"] = {"type": "array", "items": {"$ref": "#/$defs/TreeLeaf"}}
        defs["TreeLeaf"] = leaf
        defs["TreeNode"] = mid
    return schema


def _cap_arrays(node: Any) -> None:
    """Short arrays keep generation fast; length is not what a round trip tests."""
    if isinstance(node, dict):
        if node.get("type") == "array":
            node.setdefault("maxItems", 2)
        for value in node.values():
            _cap_arrays(value)
    elif isinstance(node, list):
        for value in node:
            _cap_arrays(value)


def _is_event_union(node: Any) -> bool:
    mapping = node.get("discriminator", {}).get("mapping", {}) if isinstance(node, dict) else {}
    return "message_delta" in mapping


def _empty_event_lists(schema: dict[str, Any]) -> bool:
    """Empties every top-level `events: list[Event]` (EventBatch, SnapshotReply) in place.

    hypothesis-jsonschema re-merges a union this large inside an array on every draw (a minute
    for event-batch alone); `_strategy` fills those lists from the Event strategy instead."""
    found = False
    objects = [schema, *schema.get("oneOf", []), *schema.get("anyOf", [])]
    objects = [schema["$defs"][o["$ref"].rsplit("/", 1)[1]] if "$ref" in o else o for o in objects]
    for node in objects:
        events = node.get("properties", {}).get("events")
        if isinstance(events, dict) and _is_event_union(events.get("items")):
            node["properties"]["events"] = {"type": "array", "maxItems": 0}
            found = True
    return found


def _fill_events(drawn: tuple[Any, list[Any]]) -> Any:
    raw, events = drawn
    if isinstance(raw, dict) and isinstance(raw.get("events"), list):
        raw = {**raw, "events": events}
    return raw


def _base64_images(schema: dict[str, Any]) -> None:
    """An image's data is base64 (a prompt's or a steer's are refused otherwise: `image_problem`),
    which its schema does not say."""
    image = schema.get("$defs", {}).get("ImageBlock")
    if image is not None:
        image["properties"]["data"]["pattern"] = "^(?:[A-Za-z0-9+/]{4}){0,4}$"


@functools.cache  # the Event union's takes seconds to build; event-batch and reply reuse it
def _strategy(tp: Any) -> st.SearchStrategy[Any]:
    schema = _unroll_tree(TypeAdapter(tp).json_schema(mode="validation"))
    _cap_arrays(schema)
    _base64_images(schema)
    if _empty_event_lists(schema):
        events = st.lists(_strategy(WIRE_TYPES["event"]), max_size=2)
        return st.tuples(from_schema(schema), events).map(_fill_events)
    return from_schema(schema)


@pytest.mark.parametrize("name", sorted(WIRE_TYPES))
def test_round_trip(name: str) -> None:
    adapter: TypeAdapter[Any] = TypeAdapter(WIRE_TYPES[name])

    @settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
    @given(_strategy(WIRE_TYPES[name]))
    def check(raw: Any) -> None:
        model = adapter.validate_python(raw)
        text = adapter.dump_json(model)
        again = adapter.validate_json(text)
        assert again == model
        assert adapter.dump_json(again) == text

    check()


def test_nested_tree_round_trips() -> None:
    tree = TreeDescriptor(
        root=TreeNode(
            label="src",
            is_dir=True,
            children=[TreeNode(label="pkg", is_dir=True, children=[TreeNode(label="a.py")])],
        )
    )
    assert TreeDescriptor.model_validate_json(tree.model_dump_json()) == tree


def test_parent_id_uses_the_wire_name() -> None:
    raw = {
        "v": 1,
        "id": "e2",
        "parentId": "e1",
        "ts": 1.5,
        "type": "message",
        "details": {"message": {"role": "user", "content": [{"type": "text", "text": "hi"}]}},
    }
    entry = TypeAdapter(SessionEntry).validate_python(raw)
    assert entry.parent_id == "e1"
    assert json.loads(entry.model_dump_json())["parentId"] == "e1"


def _error_of(name: str, raw: Any) -> ValidationError:
    with pytest.raises(ValidationError) as info:
        TypeAdapter(WIRE_TYPES[name]).validate_python(raw)
    return info.value


def test_unknown_type_is_named() -> None:
    err = _error_of("event", {"type": "telepathy", "agent_id": "a", "seq": 0, "ts": 0})
    assert "telepathy" in str(err)
    assert err.errors()[0]["type"] == "union_tag_invalid"


def test_missing_field_is_named() -> None:
    err = _error_of("command", {"type": "permission_response", "request_id": "r1"})
    missing = {e["loc"][-1] for e in err.errors() if e["type"] == "missing"}
    assert missing == {"decision", "client_id"}


def test_missing_discriminator_is_named() -> None:
    err = _error_of("decision", {"reason": "no"})
    assert "kind" in str(err)


def test_unknown_field_is_rejected() -> None:
    err = _error_of("command", {"type": "abort", "force": True})
    assert err.errors()[0]["loc"][-1] == "force"
    assert err.errors()[0]["type"] == "extra_forbidden"
