"""L1 contracts: the seams every implementation plugs into. Protocols and plain data only.

Imported lazily (PEP 562): `from shard_core.contracts import Tool` loads the module that defines
`Tool` and no other — the seams pull in the wire types and the protocol, which a caller that
needs one seam (the CLI's `shard session`, the kernel before its agent boots) should not pay
for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shard_core.lazy_exports import lazy_getattr

if TYPE_CHECKING:
    from shard_core.contracts.access import (
        CommandAccess,
        DomainAccess,
        PathAccess,
        ToolAccess,
        access_of,
    )
    from shard_core.contracts.codeintel import CodeIntelligenceProvider, Symbol
    from shard_core.contracts.compactor import (
        CompactionInput,
        Compactor,
        ExtensibleCompactor,
        Extractor,
        ExtractorContext,
    )
    from shard_core.contracts.events import EventBus, EventHandler
    from shard_core.contracts.extension import (
        CommandHandler,
        Disposer,
        Extension,
        ExtensionApi,
        McpTransportFactory,
        ProviderFactory,
        SkillLoader,
        StatusRow,
    )
    from shard_core.contracts.gate import PermissionGate, PermissionOutcome, PermissionQuery
    from shard_core.contracts.mode import Mode, ModeContext
    from shard_core.contracts.provider import (
        ModelFamily,
        ModelParser,
        Provider,
        ProviderSetup,
        ProviderSpec,
        WireBody,
    )
    from shard_core.contracts.tool import (
        PreviewableTool,
        ReachingTool,
        Tool,
        ToolContext,
        ToolRegistry,
        tool_spec,
    )
    from shard_core.contracts.ui import PermissionAnswer, PermissionPrompt, UiBridge
    from shard_core.contracts.web import (
        FetchedPage,
        FetchLimits,
        SearchHit,
        SearchProvider,
        SearchRequest,
        WebError,
        WebFetcher,
    )

_WHERE: dict[str, str] = {
    "CommandAccess": "access",
    "DomainAccess": "access",
    "PathAccess": "access",
    "ToolAccess": "access",
    "access_of": "access",
    "CodeIntelligenceProvider": "codeintel",
    "Symbol": "codeintel",
    "CompactionInput": "compactor",
    "Compactor": "compactor",
    "ExtensibleCompactor": "compactor",
    "Extractor": "compactor",
    "ExtractorContext": "compactor",
    "EventBus": "events",
    "EventHandler": "events",
    "CommandHandler": "extension",
    "Disposer": "extension",
    "Extension": "extension",
    "ExtensionApi": "extension",
    "McpTransportFactory": "extension",
    "ProviderFactory": "extension",
    "SkillLoader": "extension",
    "StatusRow": "extension",
    "PermissionGate": "gate",
    "PermissionOutcome": "gate",
    "PermissionQuery": "gate",
    "Mode": "mode",
    "ModeContext": "mode",
    "Provider": "provider",
    "ModelFamily": "provider",
    "ModelParser": "provider",
    "ProviderSetup": "provider",
    "ProviderSpec": "provider",
    "WireBody": "provider",
    "FetchedPage": "web",
    "FetchLimits": "web",
    "SearchHit": "web",
    "SearchProvider": "web",
    "SearchRequest": "web",
    "WebError": "web",
    "WebFetcher": "web",
    "PreviewableTool": "tool",
    "ReachingTool": "tool",
    "Tool": "tool",
    "ToolContext": "tool",
    "ToolRegistry": "tool",
    "tool_spec": "tool",
    "PermissionAnswer": "ui",
    "PermissionPrompt": "ui",
    "UiBridge": "ui",
}
"""Each exported name → its module under shard_core.contracts."""


__getattr__ = lazy_getattr(__name__, _WHERE, globals())


__all__ = [
    "CodeIntelligenceProvider",
    "CommandAccess",
    "CommandHandler",
    "CompactionInput",
    "Compactor",
    "Disposer",
    "DomainAccess",
    "EventBus",
    "EventHandler",
    "ExtensibleCompactor",
    "Extension",
    "ExtensionApi",
    "Extractor",
    "ExtractorContext",
    "FetchLimits",
    "FetchedPage",
    "McpTransportFactory",
    "Mode",
    "ModeContext",
    "ModelFamily",
    "ModelParser",
    "PathAccess",
    "PermissionAnswer",
    "PermissionGate",
    "PermissionOutcome",
    "PermissionPrompt",
    "PermissionQuery",
    "PreviewableTool",
    "Provider",
    "ProviderFactory",
    "ProviderSetup",
    "ProviderSpec",
    "ReachingTool",
    "SearchHit",
    "SearchProvider",
    "SearchRequest",
    "SkillLoader",
    "StatusRow",
    "Symbol",
    "Tool",
    "ToolAccess",
    "ToolContext",
    "ToolRegistry",
    "UiBridge",
    "WebError",
    "WebFetcher",
    "WireBody",
    "access_of",
    "tool_spec",
]
