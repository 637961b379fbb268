"""Code intelligence: a tree-sitter index of the workspace (outlines, symbols, signatures, a
ranked repo map) kept current by `file_mutated` events, and a language server's errors after
each change of a Python file."""

from shard_core.capabilities.code_index.extension import CodeIndexCapability
from shard_core.capabilities.code_index.index import CodeIndex
from shard_core.capabilities.code_index.provider import CodeIntelligence

__all__ = ["CodeIndex", "CodeIndexCapability", "CodeIntelligence"]
