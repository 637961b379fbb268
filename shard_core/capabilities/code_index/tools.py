"""The code index's tools: code_outline, code_symbol, repo_map and code_diagnostics.

All read-only (the gate still decides, as for every tool). Index work runs in a thread: the
first question in a session may walk and parse the whole workspace.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from shard_core.capabilities.code_index import repo_map
from shard_core.capabilities.code_index.languages import SUFFIXES, language_of
from shard_core.capabilities.code_index.parse import Definition, reference_lines
from shard_core.capabilities.code_index.provider import CodeIntelligence
from shard_core.contracts import ToolContext
from shard_core.engine.plurals import counted
from shard_core.tools.guard import guarded
from shard_core.tools.workspace import display_path, resolve_in_workspace
from shard_core.types import JsonObject, ToolResult
from shard_core.types.render import TreeDescriptor, TreeNode

KINDS = ("function", "method", "class", "interface", "struct", "enum", "trait", "type",
         "module", "macro", "constant", "heading")  # fmt: skip
MAX_DEFINITIONS = 50
MAX_REFERENCE_FILES = 20
MAX_REFERENCE_LINES = 5
DEFAULT_BUDGET = 1024
_LANGUAGES = ", ".join(sorted(set(SUFFIXES)))


class CodeOutlineTool:
    name = "code_outline"
    description = (
        "The definitions in one source file (classes, functions, methods, types; headings in "
        "Markdown) as a nested outline with line numbers and signatures, from a tree-sitter "
        "parse. Cheaper than reading the file to learn its shape. "
        f"Parses: {_LANGUAGES}."
    )
    input_schema: JsonObject = {
        "type": "object",
        "properties": {"path": {"type": "string", "description": "A file in the workspace."}},
        "required": ["path"],
        "additionalProperties": False,
    }
    read_only = True

    def __init__(self, code: CodeIntelligence) -> None:
        self.code = code

    @guarded
    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        target = resolve_in_workspace(str(input["path"]), ctx)
        if isinstance(target, ToolResult):
            return target
        shown = display_path(target, ctx)
        if not target.is_file():
            what = "is a directory; use ls" if target.is_dir() else "does not exist"
            return ToolResult.error(f"{shown} {what}", path=shown)
        if language_of(target.name) is None:
            return ToolResult.error(
                f"{shown}: no grammar for this kind of file (the index parses {_LANGUAGES})",
                path=shown,
            )
        if self.code.index.relative(target) is None:
            return ToolResult.error(f"{shown} is outside the indexed workspace", path=shown)
        defs = await asyncio.to_thread(self.code.index.definitions, str(target))
        root = TreeNode(label=shown, children=_nested(defs))
        lines = [f"{'  ' * _depth(defs, i)}{d.line}: {d.signature}" for i, d in enumerate(defs)]
        text = "\n".join([f"{shown} ({len(defs)} definitions)", *lines])
        return ToolResult.ok(text, TreeDescriptor(root=root), path=shown, definitions=len(defs))


class CodeSymbolTool:
    name = "code_symbol"
    description = (
        "Where a name is defined in the workspace (file:line and signature) and which files "
        "use it (most uses first, with lines). Exact names, e.g. `parse_config` or `Session`; "
        "`kind` narrows the definitions (function, method, class, interface, struct, enum, "
        "trait, type, module, macro, constant, heading)."
    )
    input_schema: JsonObject = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1},
            "kind": {"type": "string", "enum": list(KINDS)},
        },
        "required": ["name"],
        "additionalProperties": False,
    }
    read_only = True

    def __init__(self, code: CodeIntelligence) -> None:
        self.code = code

    @guarded
    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        name = str(input["name"]).strip()
        kind = input.get("kind")
        if not name:
            return ToolResult.error("name must not be empty")
        if kind is not None and kind not in KINDS:
            return ToolResult.error(f"kind {kind!r} is not one of: {', '.join(KINDS)}")
        found = await asyncio.to_thread(self.code.symbol, name)
        note = _coverage(self.code)
        defs = [s for s in found if s.kind != "reference" and (kind is None or s.kind == kind)]
        refs = [s for s in found if s.kind == "reference"][:MAX_REFERENCE_FILES]
        if not defs and not refs:
            return ToolResult.ok(f"no definition of or reference to {name!r} in the index{note}")
        ref_lines = await asyncio.to_thread(self._lines, [r.path for r in refs], name)
        where = counted(len(refs), "file")
        text = [f"{name}: {counted(len(defs), 'definition')}, referenced in {where}{note}"]
        def_nodes: list[TreeNode] = []
        for s in defs[:MAX_DEFINITIONS]:
            text.append(f"  {s.path}:{s.line}: {s.signature} ({s.kind})")
            def_nodes.append(TreeNode(label=f"{s.path}:{s.line}  {s.signature}"))
        if refs:
            text.append("references:")
        ref_nodes: list[TreeNode] = []
        for r in refs:
            lines = ref_lines.get(r.path, [])
            where = ", ".join(str(n) for n in lines[:MAX_REFERENCE_LINES])
            more = "…" if len(lines) > MAX_REFERENCE_LINES else ""
            text.append(f"  {r.path}: {r.signature}" + (f" (lines {where}{more})" if where else ""))
            ref_nodes.append(TreeNode(label=f"{r.path}  {r.signature}"))
        root = TreeNode(
            label=name,
            children=[
                TreeNode(label="definitions", children=def_nodes, is_dir=True),
                TreeNode(label="references", children=ref_nodes, is_dir=True),
            ],
        )
        return ToolResult.ok(
            "\n".join(text), TreeDescriptor(root=root), definitions=len(defs), references=len(refs)
        )

    def _lines(self, paths: list[str], name: str) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for rel in paths:
            language = language_of(rel)
            try:
                source = (self.code.index.root / rel).read_bytes()
            except OSError:
                continue
            if language is not None:
                out[rel] = reference_lines(language, source, name)
        return out


class RepoMapTool:
    name = "repo_map"
    description = (
        "A map of the repository's most relevant definitions (signatures grouped by file) for "
        "the task at hand: ranked by how the code references itself, leaning towards the files "
        "mentioned or changed in this session and the `focus` you give (file paths or "
        f"identifiers, space-separated), within `budget` tokens (default {DEFAULT_BUDGET})."
    )
    input_schema: JsonObject = {
        "type": "object",
        "properties": {
            "focus": {"type": "string"},
            "budget": {"type": "integer", "minimum": 64, "maximum": 16384},
        },
        "additionalProperties": False,
    }
    read_only = True

    def __init__(self, code: CodeIntelligence) -> None:
        self.code = code

    @guarded
    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        budget = int(input.get("budget", DEFAULT_BUDGET))
        words = str(input.get("focus", "")).split()
        chosen = await asyncio.to_thread(self.build, words, budget)
        note = _coverage(self.code)
        if not chosen:
            return ToolResult.ok(f"the index has no definitions that other files reference{note}")
        root = TreeNode(
            label="repo map",
            children=[
                TreeNode(
                    label=path,
                    is_dir=True,
                    children=[TreeNode(label=f"{e.line}: {e.signature}") for e in entries],
                )
                for path, entries in chosen.items()
            ],
        )
        shown = sum(len(v) for v in chosen.values())
        return ToolResult.ok(
            repo_map.render(chosen) + (f"\n{note.strip()}" if note else ""),
            TreeDescriptor(root=root),
            files=len(chosen),
            symbols=shown,
        )

    def build(self, words: list[str], budget: int) -> dict[str, list[repo_map.MapEntry]]:
        index = self.code.index
        paths = [rel for w in words if (rel := index.relative(w)) is not None]
        index.begin([*self.code.focus, *paths])
        files = [rel for rel in paths if rel in index.files]
        names = [w for w in words if index.relative(w) not in files]
        return repo_map.fit(self.code.ranked(files, names), budget)


class CodeDiagnosticsTool:
    name = "code_diagnostics"
    description = (
        "Type errors in a Python file from the workspace's language server (pyright, "
        "basedpyright or pylsp, whichever is installed), or, without `path`, the errors "
        "last reported for every file changed this session."
    )
    input_schema: JsonObject = {
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "additionalProperties": False,
    }
    read_only = True

    def __init__(self, code: CodeIntelligence) -> None:
        self.code = code

    @guarded
    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        lsp = self.code.diagnostics
        if lsp.command is None:
            return ToolResult.ok(lsp.status, available=False)
        raw = input.get("path")
        await lsp.settled()  # the checks of changes already announced: what they found is current
        if raw is None:
            found = [f for errors in lsp.last.values() for f in errors]
            text = "\n".join(f.text() for f in found) or "no errors reported for changed files"
            return ToolResult.ok(text, errors=len(found), server=lsp.status)
        target = resolve_in_workspace(str(raw), ctx)
        if isinstance(target, ToolResult):
            return target
        shown = display_path(target, ctx)
        if not target.is_file() or target.suffix not in (".py", ".pyi"):
            return ToolResult.error(f"{shown}: not a Python file", path=shown)
        checked = await lsp.check(Path(target))
        if checked is None:
            return ToolResult.error(f"{shown}: no diagnostics ({lsp.status})", path=shown)
        errors = checked[1]
        text = "\n".join(f.text() for f in errors) or f"{shown}: no errors"
        return ToolResult.ok(text, path=shown, errors=len(errors), server=lsp.status)


def _coverage(code: CodeIntelligence) -> str:
    """` (indexed 340 of 2,000 files; the rest is being indexed)` while the index is built."""
    said = code.index.coverage()
    return f" ({said})" if said else ""


def _depth(defs: list[Definition], i: int) -> int:
    depth, parent = 0, defs[i].parent
    while parent >= 0:
        depth, parent = depth + 1, defs[parent].parent
    return depth


def _nested(defs: list[Definition]) -> list[TreeNode]:
    nodes = [TreeNode(label=f"{d.line}: {d.signature}") for d in defs]
    top: list[TreeNode] = []
    for d, node in zip(defs, nodes, strict=True):
        (nodes[d.parent].children if d.parent >= 0 else top).append(node)
    for d, node in zip(defs, nodes, strict=True):
        node.is_dir = bool(node.children) or d.kind in ("class", "interface", "struct", "trait")
    return top
