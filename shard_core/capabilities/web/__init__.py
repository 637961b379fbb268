"""The web capability: `web_fetch` and `web_search` behind the fetcher and search registries."""

from shard_core.capabilities.web.extension import (
    WEB_TOOL_TYPES,
    WebCapability,
    declare_web_tools,
)

__all__ = ["WEB_TOOL_TYPES", "WebCapability", "declare_web_tools"]
