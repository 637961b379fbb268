"""L1 contracts: the seams every implementation plugs into. Protocols and plain data only."""

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
)
from shard_core.contracts.gate import PermissionGate, PermissionOutcome, PermissionQuery
from shard_core.contracts.mode import Mode, ModeContext
from shard_core.contracts.provider import Provider
from shard_core.contracts.tool import PreviewableTool, Tool, ToolContext, ToolRegistry, tool_spec
from shard_core.contracts.ui import PermissionAnswer, PermissionPrompt, UiBridge

__all__ = [
    "CodeIntelligenceProvider",
    "CommandHandler",
    "CompactionInput",
    "Compactor",
    "Disposer",
    "EventBus",
    "EventHandler",
    "ExtensibleCompactor",
    "Extension",
    "ExtensionApi",
    "Extractor",
    "ExtractorContext",
    "McpTransportFactory",
    "Mode",
    "ModeContext",
    "PermissionAnswer",
    "PermissionGate",
    "PermissionOutcome",
    "PermissionPrompt",
    "PermissionQuery",
    "PreviewableTool",
    "Provider",
    "ProviderFactory",
    "SkillLoader",
    "Symbol",
    "Tool",
    "ToolContext",
    "ToolRegistry",
    "UiBridge",
    "tool_spec",
]
