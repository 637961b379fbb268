"""The one base class every wire model shares: strict, JSON-only, camelCase-safe aliases."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

JsonObject = dict[str, Any]
"""A JSON object as it travels: tool inputs, details bags, schema fragments."""

DISCRIMINATORS = ("type", "kind", "role")

DEFERRED = ConfigDict(defer_build=True)
"""A module-level TypeAdapter's config: its validator is built at its first use, not at import
(the kernel answers kernel_info and boots its agent without building every union it may read)."""


def _require_discriminator(schema: dict[str, Any]) -> None:
    """A Literal tag with a default is still required on the wire: unions dispatch on it."""
    properties: dict[str, Any] = schema.get("properties", {})
    required: list[str] = schema.setdefault("required", [])
    for name in DISCRIMINATORS:
        if "const" in properties.get(name, {}) and name not in required:
            required.insert(0, name)


class WireModel(BaseModel):
    """Base for every model that crosses a process boundary or lands in the JSONL.

    Unknown fields are an error (a typo in a client command must not be silently ignored);
    aliases are used on output so `parentId` reads the same on the wire, in the JSONL and in
    TypeScript, while Python code can still use the field name.
    """

    model_config = ConfigDict(
        extra="forbid",
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        ser_json_inf_nan="strings",
        json_schema_extra=_require_discriminator,
        json_schema_serialization_defaults_required=True,
        # Each model's validator is built at its first use, not when its module is imported: a
        # kernel's boot or a CLI command uses few of the ~150 wire models it imports.
        defer_build=True,
    )

    def to_json(self) -> str:
        """Compact JSON text, the form written to the JSONL and sent on the wire."""
        return self.model_dump_json(exclude_none=False)
