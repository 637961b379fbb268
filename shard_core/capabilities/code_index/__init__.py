"""Code intelligence: a tree-sitter index of the workspace (outlines, symbols, signatures, a
ranked repo map) kept current by `file_mutated` events, and a language server's errors after
each change of a Python file.

The public names are imported on first use (PEP 562): a parse worker process imports
`code_index.pool` alone, not the capability and the engine behind it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shard_core.lazy_exports import lazy_getattr

if TYPE_CHECKING:
    from shard_core.capabilities.code_index.extension import CodeIndexCapability
    from shard_core.capabilities.code_index.index import CodeIndex
    from shard_core.capabilities.code_index.provider import CodeIntelligence

__all__ = ["CodeIndex", "CodeIndexCapability", "CodeIntelligence"]
_WHERE = {"CodeIndex": "index", "CodeIndexCapability": "extension", "CodeIntelligence": "provider"}


__getattr__ = lazy_getattr(__name__, _WHERE, globals())
