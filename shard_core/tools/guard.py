"""The edge every built-in tool shares: input checked against its schema, no exception escaping."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar, cast

from shard_core.contracts import ToolContext
from shard_core.types import JsonObject, ToolResult


class _Described(Protocol):
    name: str
    input_schema: JsonObject


ExecuteT = TypeVar("ExecuteT", bound=Callable[..., Awaitable[ToolResult]])


def guarded(run: ExecuteT) -> ExecuteT:
    """Wrap a tool's `execute`: bad input and any exception become `ToolResult.error`.

    Only cancellation passes through (it is not an `Exception`), so the loop can still stop
    a tool; everything else is reported to the model as data, as the Tool contract promises.
    """

    @functools.wraps(run)
    async def execute(self: _Described, input: JsonObject, ctx: ToolContext) -> ToolResult:
        problem = check_input(self.input_schema, input)
        if problem:
            return ToolResult.error(f"invalid {self.name} input: {problem}")
        try:
            return await run(self, input, ctx)
        except OSError as exc:
            where = f" ({exc.filename})" if exc.filename else ""
            return ToolResult.error(f"{self.name} failed: {exc.strerror or exc}{where}")
        except Exception as exc:
            return ToolResult.error(f"{self.name} failed: {type(exc).__name__}: {exc}")

    return cast(ExecuteT, execute)


_TYPE_NAMES: dict[type, str] = {
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    list: "array",
    dict: "object",
    type(None): "null",
}


def check_input(schema: JsonObject, value: object) -> str | None:
    """The first way `value` breaks `schema`, in words a model can act on; None when it fits."""
    return _check(schema, value, "")


def _check(schema: JsonObject, value: object, where: str) -> str | None:
    expected: str | None = schema.get("type")
    if expected is not None and not _is_type(value, expected):
        return f"{_name(where)} must be {_article(expected)}, got {_describe(value)}"
    if isinstance(value, dict):
        return _check_object(schema, cast(JsonObject, value), where)
    if isinstance(value, list):
        items: JsonObject | None = schema.get("items")
        for index, item in enumerate(cast(list[Any], value)):
            problem = _check(items, item, f"{where}[{index}]") if items else None
            if problem:
                return problem
        return None
    return _check_scalar(schema, value, _name(where))


def _check_object(schema: JsonObject, value: JsonObject, where: str) -> str | None:
    properties: JsonObject = schema.get("properties", {})
    prefix = f"{where}." if where else ""
    for key in schema.get("required", []):
        if key not in value:
            return f"missing required field '{prefix}{key}'"
    if schema.get("additionalProperties") is False:
        unknown = sorted(set(value) - set(properties))
        if unknown:
            allowed = ", ".join(properties)
            return f"unknown field '{prefix}{unknown[0]}' (allowed: {allowed})"
    for key, sub in properties.items():
        if key in value:
            problem = _check(sub, value[key], f"{prefix}{key}")
            if problem:
                return problem
    return None


def _check_scalar(schema: JsonObject, value: object, name: str) -> str | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        low: float | None = schema.get("minimum")
        high: float | None = schema.get("maximum")
        above: float | None = schema.get("exclusiveMinimum")
        if low is not None and value < low:
            return f"{name} must be at least {low:g}, got {value:g}"
        if high is not None and value > high:
            return f"{name} must be at most {high:g}, got {value:g}"
        if above is not None and value <= above:
            return f"{name} must be greater than {above:g}, got {value:g}"
    if isinstance(value, str) and len(value) < schema.get("minLength", 0):
        return f"{name} must not be empty"
    return None


def _name(where: str) -> str:
    return f"'{where}'" if where else "input"


def _describe(value: object) -> str:
    kind, shown = _type_name(value), repr(value)
    if kind in ("object", "array") or len(shown) > 40:
        return kind
    return f"{kind} {shown}"


def _is_type(value: object, expected: str) -> bool:
    if expected == "integer":
        # JSON has one number type: 3.0 is an integer, True is not.
        exact = isinstance(value, float) and value.is_integer()
        return exact or (isinstance(value, int) and not isinstance(value, bool))
    if expected == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return _type_name(value) == expected


def _type_name(value: object) -> str:
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def _article(type_name: str) -> str:
    return f"an {type_name}" if type_name[0] in "aeiou" else f"a {type_name}"
