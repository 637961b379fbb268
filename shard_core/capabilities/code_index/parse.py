"""One file's symbols: the definitions (kind, line span, signature, enclosing definition) and
how often it names each identifier, from one tree-sitter parse and one query pass."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from tree_sitter import Node, QueryCursor

from shard_core.capabilities.code_index.languages import grammar

SIGNATURE_CHARS = 200
_SPACE = re.compile(r"\s+")
_LINE_COMMENT = re.compile(r"(?:#|//)(?![^\n]*[\"'])[^\n]*")
"""`# …` or `// …` to the end of the line, unless a quote follows (it may be inside a string)"""
_OPEN = re.compile(r"\(\s+")
_CLOSE = re.compile(r",?\s+\)")
_BODY_FIELDS = ("body",)
_CONTAINERS = frozenset({"class", "interface", "struct", "trait", "enum", "module"})


@dataclass(frozen=True)
class Definition:
    name: str
    kind: str
    line: int
    """1-based line of the definition's first line (after decorators)"""
    end_line: int
    signature: str
    parent: int = -1
    """index of the enclosing definition in the file's list, -1 at top level"""


@dataclass
class FileSymbols:
    language: str
    definitions: list[Definition] = field(default_factory=list[Definition])
    references: dict[str, int] = field(default_factory=dict[str, int])
    """identifier → how many times this file references it (calls, types, base classes)"""


SymbolsRow = tuple[str, list[list[Any]], dict[str, int]]
"""FileSymbols as plain data (language, definitions, references): what a worker process sends
back and what the store writes"""


def symbols_row(symbols: FileSymbols) -> SymbolsRow:
    defs = [
        [d.name, d.kind, d.line, d.end_line, d.signature, d.parent] for d in symbols.definitions
    ]
    return symbols.language, defs, symbols.references


def symbols_from_row(row: SymbolsRow) -> FileSymbols:
    language, defs, refs = row
    definitions = [Definition(n, k, int(a), int(b), s, int(p)) for n, k, a, b, s, p in defs]
    return FileSymbols(str(language), definitions, {str(k): int(v) for k, v in refs.items()})


def parse_source(language: str, source: bytes) -> FileSymbols:
    parser, query = grammar(language)
    tree = parser.parse(source)
    found: list[tuple[Node, str, str]] = []
    refs: Counter[str] = Counter()
    for _, captures in QueryCursor(query).matches(tree.root_node):
        names = captures.get("name")
        if names is None:
            for node in captures.get("ref", ()):
                refs[_text(node)] += 1
            continue
        for key, nodes in captures.items():
            if key.startswith("def."):
                found.append((nodes[0], key[4:], _text(names[0])))
    return FileSymbols(language, _nest(found, source), dict(refs))


def _nest(found: list[tuple[Node, str, str]], source: bytes) -> list[Definition]:
    """Definitions in source order, each with the innermost definition that contains it;
    a function directly inside a class (or struct, trait…) is a method."""
    found.sort(key=lambda f: (f[0].start_byte, -f[0].end_byte))
    out: list[Definition] = []
    stack: list[tuple[int, int]] = []  # (end byte, index in out)
    seen: set[tuple[int, int, str]] = set()
    for node, kind, name in found:
        key = (node.start_byte, node.end_byte, name)
        if key in seen:
            continue
        seen.add(key)
        while stack and stack[-1][0] <= node.start_byte:
            stack.pop()
        parent = stack[-1][1] if stack else -1
        if kind == "function" and parent >= 0 and out[parent].kind in _CONTAINERS:
            kind = "method"
        line, end = node.start_point[0] + 1, node.end_point[0] + 1
        out.append(Definition(name, kind, line, end, _signature(node, kind, source), parent))
        stack.append((node.end_byte, len(out) - 1))
    return out


def _signature(node: Node, kind: str, source: bytes) -> str:
    """The definition's head: its text up to the body, on one line (`def f(a: int) -> str`)."""
    if kind == "heading":
        return _squash(_text(node).lstrip("#").strip())
    end = node.end_byte
    value = node.child_by_field_name("value") if node.type == "variable_declarator" else None
    holder = value or node  # `const f = (a) => …`: the head runs to the arrow's body
    for name in _BODY_FIELDS:
        body = holder.child_by_field_name(name)
        if body is not None and body.start_byte > node.start_byte:
            end = body.start_byte
            break
    colon = next((c for c in holder.children if c.type == ":"), None)
    if colon is not None and colon.start_byte < end:  # Python: a comment may follow the colon
        end = colon.start_byte
    head = source[node.start_byte : min(end, node.start_byte + 4 * SIGNATURE_CHARS)]
    raw = head.decode("utf-8", "replace")
    if "#" in raw or "//" in raw:  # a comment between the parameters is not signature
        raw = _LINE_COMMENT.sub("", raw)
    text = _squash(raw).rstrip("{:=( ").rstrip()
    if end == node.end_byte and "\n" in _text(node):  # no body field: keep the first line
        text = _squash(_text(node).split("\n", 1)[0]).rstrip("{:( ")
    return text if len(text) <= SIGNATURE_CHARS else text[: SIGNATURE_CHARS - 1] + "…"


def _squash(text: str) -> str:
    text = _SPACE.sub(" ", text).strip()
    return _CLOSE.sub(")", _OPEN.sub("(", text))


def _text(node: Node) -> str:
    raw = node.text
    return raw.decode("utf-8", "replace") if raw is not None else ""


def reference_lines(language: str, source: bytes, name: str) -> list[int]:
    """1-based lines where the file references `name` (the query's `@ref` captures)."""
    parser, query = grammar(language)
    tree = parser.parse(source)
    lines: set[int] = set()
    for node in QueryCursor(query).captures(tree.root_node).get("ref", ()):
        if _text(node) == name:
            lines.add(node.start_point[0] + 1)
    return sorted(lines)
