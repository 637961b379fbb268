"""The goal an ACP client gives session/new in `_meta`: `{"shard": {"goal": "TEXT"}}`
(docs/GOALS.md). The SDK spreads `_meta` into the handler's keyword arguments."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from acp import RequestError

META_KEY = "shard"


def requested_goal(meta: Mapping[str, Any]) -> str | None:
    """The goal `_meta.shard.goal` names, None when absent; anything but text is an error."""
    shard = meta.get(META_KEY)
    if shard is None:
        return None
    goal = cast("dict[str, Any]", shard).get("goal") if isinstance(shard, dict) else shard
    if goal is None:
        return None
    if not isinstance(goal, str):
        message = '_meta.shard.goal must be a string: {"_meta": {"shard": {"goal": "TEXT"}}}'
        raise RequestError.invalid_params({"message": message})
    return goal
