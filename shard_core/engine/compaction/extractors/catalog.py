"""Type Catalog: signatures from files the agent read (and, with a code index, changed) — from
the code index when one is registered, else by regex over the read result: public Python defs
and classes, exported TypeScript/JavaScript declarations and top-level types, exported Go funcs
and types, pub Rust items."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

from shard_core.contracts.compactor import ExtractorContext
from shard_core.engine.compaction.context import facts_of, tool_index
from shard_core.engine.compaction.excerpts import clip, clip_all
from shard_core.engine.compaction.extractors.files import changing_tools
from shard_core.types import NormalizedBlock, ToolResultNBlock

log_ = logging.getLogger("shard.compaction")

READ_TOOLS = frozenset({"read", "Read", "read_file", "view"})
"""Tools whose result is a file's text as `read` gives it (numbered lines): a fact of that output
format, not of a permission shape (a path tool's result may be anything)."""
MAX_PATHS = 15
MAX_SIGNATURES = 8
SIGNATURE_CHARS = 110
SCAN_CHARS = 60_000
# Every pattern is anchored at a line start. It is written `\n…` and searched in the text with
# a newline put in front, not `^…` with MULTILINE: a pattern that starts with a literal lets the
# regex engine skip from one newline to the next, where `^` made it try every position. No
# match ends with a newline, so each finds what its `^` form finds (with that newline in front:
# `strip` takes it off). tests/unit/engine/compaction/test_shortcuts.py holds both forms equal.
_LINE_NUMBER = re.compile(r"\n\s*\d+\t")
_PY = r"\n[ ]{0,4}(?:async\s+def|def|class)\s+(?!_(?!_init__))\w+[^\n]*"
_TS = (
    r"\n(?:\s*export\s+(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?"
    r"(?:function\*?\s+\w+|interface\s+\w+|type\s+\w+|class\s+\w+|enum\s+\w+"
    r"|const\s+\w+\s*(?::[^=\n]+)?=\s*(?:async\s*)?\()[^\n]*"
    r"|(?:declare\s+)?(?:abstract\s+)?(?:interface|type|class|enum)\s+\w+[^\n]*)"
)
_GO = r"\n(?:func\s+(?:\([^)]*\)\s*)?[A-Z]\w*\s*\(|type\s+\w+\s+(?:struct|interface)\b)[^\n]*"
_RS = (
    r"\n\s*pub(?:\([^)]*\))?\s+(?:async\s+)?(?:unsafe\s+)?(?:fn|struct|enum|trait|type)\s+\w+[^\n]*"
)
_BY_SUFFIX: dict[str, re.Pattern[str]] = {}
for _suffixes, _pattern in (
    ((".py", ".pyi"), _PY),
    ((".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts"), _TS),
    ((".go",), _GO),
    ((".rs",), _RS),
):
    for _suffix in _suffixes:
        _BY_SUFFIX[_suffix] = re.compile(_pattern)


def regex_signatures(path: str, text: str) -> list[str]:
    suffix = path[path.rfind(".") :] if "." in path else ""
    pattern = _BY_SUFFIX.get(suffix)
    if pattern is None:
        return []
    source = _LINE_NUMBER.sub("\n", "\n" + text[:SCAN_CHARS])  # numbers off, "\n" in front
    found = [match.group(0).strip().rstrip("{;: ") for match in pattern.finditer(source)]
    return list(dict.fromkeys(clip_all(found, SIGNATURE_CHARS)))


def read_signatures(block: ToolResultNBlock, path: str) -> list[str]:
    return regex_signatures(path, block.text)


def _indexed(ctx: ExtractorContext, path: str) -> list[str] | None:
    if ctx.code_index is None:
        return None
    try:
        return [clip(s, SIGNATURE_CHARS) for s in ctx.code_index.signatures(path)]
    except Exception:
        log_.warning("code index failed on %s; using regex signatures", path, exc_info=True)
        return None


class TypeCatalog:
    name = "types"
    title = "Type Catalog"
    merge = "union-keyed"

    def __call__(self, blocks: Sequence[NormalizedBlock], ctx: ExtractorContext) -> list[str]:
        tools = tool_index(blocks, ctx)
        # With a code index, files the agent changed count too: it knows their signatures.
        names = READ_TOOLS if ctx.code_index is None else READ_TOOLS | changing_tools()
        newest: dict[str, ToolResultNBlock] = {}  # path → its latest read, newest first
        for block in tools.newest("tool_result"):
            if block.kind == "tool_result" and block.name in names and not block.is_error:
                path = tools.path_of(block)
                if path is not None and path not in newest:
                    newest[path] = block
                    if len(newest) == MAX_PATHS:
                        break  # the catalog shows the last MAX_PATHS files read
        lines: list[str] = []
        facts = facts_of(ctx)
        for path, block in reversed(newest.items()):
            signatures = _indexed(ctx, path)
            if signatures is None:
                signatures = facts.of(read_signatures, block, path)
            if signatures:
                shown = "; ".join(signatures[:MAX_SIGNATURES])
                more = len(signatures) - MAX_SIGNATURES
                lines.append(f"{path}: {shown}" + (f"; (+{more} more)" if more > 0 else ""))
        return lines
