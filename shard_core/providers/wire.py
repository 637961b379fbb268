"""The JSON body a provider's SDK sends for a ProviderRequest, by provider name.

Both bundled SDK providers stream, so the SDK adds `"stream": true` to the parameters the
format modules build. A provider this module does not know (scripted, an extension's) has no
wire body here: `None`, and the caller shows the neutral request instead.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from shard_core.providers import anthropic_format, openai_format
from shard_core.types import ProviderRequest

Json = dict[str, Any]
WIRE_FORMATS = ("anthropic", "openai")


def wire_body(
    provider: str | None, request: ProviderRequest, options: Mapping[str, object]
) -> Json | None:
    if provider == "anthropic":
        return {**anthropic_format.request_params(request, request.model), "stream": True}
    if provider == "openai":
        official = bool(options.get("official", False))
        params = openai_format.request_params(request, request.model, official=official)
        return {**params, "stream": True}
    return None


def canonical_json(value: object) -> str:
    """Sorted keys, no insignificant whitespace: equal requests are equal strings."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
