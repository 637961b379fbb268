"""The JSON body a provider's SDK sends for a ProviderRequest: its spec's `wire_body`, found by
the provider name the log records (a spec's prefix).

A provider whose spec has none (scripted, a test's) has no wire body: `None`, and the caller
shows the neutral request instead.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from shard_core.contracts.provider import ProviderSpec
from shard_core.providers.bundled import BUNDLED
from shard_core.types import ProviderRequest

Json = dict[str, Any]
WIRE_FORMATS = tuple(spec.prefix for spec in BUNDLED if spec.wire_body is not None)


def wire_body(
    provider: str | None,
    request: ProviderRequest,
    options: Mapping[str, object],
    specs: Iterable[ProviderSpec] = BUNDLED,
) -> Json | None:
    found = [spec for spec in specs if spec.prefix == provider]
    build = found[-1].wire_body if found else None
    return None if build is None else build(request, options)


def canonical_json(value: object) -> str:
    """Sorted keys, no insignificant whitespace: equal requests are equal strings."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
