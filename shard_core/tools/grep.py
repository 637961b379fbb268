"""GrepTool: search file contents by regex with ripgrep, or a Python fallback, gitignore-aware."""

from __future__ import annotations

import asyncio

from shard_core.contracts import ToolContext
from shard_core.contracts.access import ToolAccess
from shard_core.tools.guard import guarded
from shard_core.tools.pysearch import search_with_python
from shard_core.tools.ripgrep import find_rg, search_with_rg
from shard_core.tools.search import SearchLine, SearchOutcome, SearchQuery
from shard_core.tools.shapes import BUILTIN_ACCESS
from shard_core.tools.workspace import display_path, resolve_in_workspace, workspace_root
from shard_core.types import JsonObject, ToolResult
from shard_core.types.render import TextDescriptor

DEFAULT_MAX_RESULTS = 200
MAX_LINE_CHARS = 500
MAX_OUTPUT_BYTES = 50_000


class GrepTool:
    name: str = "grep"
    description: str = (
        "Search file contents with a regular expression (ripgrep syntax) below a path in the "
        "workspace, skipping .gitignore'd and binary files. Output lines read path:line:text "
        "(context lines path-line-text). Shows at most max_results matches (default "
        f"{DEFAULT_MAX_RESULTS}) and about {MAX_OUTPUT_BYTES // 1000} KB; long lines are cut at "
        f"{MAX_LINE_CHARS} characters. Use glob (e.g. '*.py') to filter files, literal for "
        "exact text."
    )
    input_schema: JsonObject = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "minLength": 1, "description": "Regular expression."},
            "path": {"type": "string", "description": "File or directory (default: the cwd)."},
            "glob": {"type": "string", "description": "Only files matching this glob."},
            "ignore_case": {"type": "boolean"},
            "context": {"type": "integer", "minimum": 0, "maximum": 10},
            "max_results": {"type": "integer", "minimum": 1, "maximum": 2000},
            "literal": {"type": "boolean", "description": "Treat pattern as plain text."},
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }
    read_only: bool = True
    kind: str = "search"  # ToolKind: what an ACP host shows
    access: ToolAccess = BUILTIN_ACCESS["grep"]

    def __init__(self, *, use_ripgrep: bool = True) -> None:
        # Looked up once: the binary does not move while a kernel runs.
        self.rg = find_rg() if use_ripgrep else None

    @guarded
    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        target = resolve_in_workspace(input.get("path", "."), ctx)
        if isinstance(target, ToolResult):
            return target
        shown = display_path(target, ctx)
        if not target.exists():
            return ToolResult.error(f"path not found: {shown}", path=shown)
        query = SearchQuery(
            pattern=input["pattern"],
            target=target,
            root=workspace_root(target, ctx),
            glob=input.get("glob"),
            ignore_case=bool(input.get("ignore_case", False)),
            literal=bool(input.get("literal", False)),
            context=int(input.get("context", 0)),
            max_results=int(input.get("max_results", DEFAULT_MAX_RESULTS)),
        )
        if self.rg:
            outcome = await search_with_rg(self.rg, query)
        else:
            outcome = await asyncio.to_thread(search_with_python, query)
        if outcome.error:
            return ToolResult.error(outcome.error, path=shown)
        return _result(outcome, query, shown, ctx, engine="ripgrep" if self.rg else "python")


def _result(
    outcome: SearchOutcome, query: SearchQuery, shown: str, ctx: ToolContext, engine: str
) -> ToolResult:
    facts: JsonObject = {"path": shown, "engine": engine, "matches": outcome.matches}
    if not outcome.matches:
        return ToolResult.ok(
            f"no matches for {query.pattern!r} in {shown}", truncated=False, shown=0, **facts
        )
    text, shown_matches = _format(outcome.lines, query.context, ctx)
    hidden = outcome.matches - shown_matches
    note = ""
    if hidden:
        more = f"{hidden}" if outcome.complete else f"at least {hidden}"
        note = f"\n\n[{more} more matches not shown; narrow the pattern, path or glob]"
    return ToolResult.ok(
        text + note,
        TextDescriptor(text=text, format="code"),
        truncated=bool(hidden),
        shown=shown_matches,
        **facts,
    )


def _format(lines: list[SearchLine], context: int, ctx: ToolContext) -> tuple[str, int]:
    """rg-style text for `lines`, stopped at the byte cap; also how many matches it shows."""
    out: list[str] = []
    used = matches = 0
    previous: SearchLine | None = None
    for line in lines:
        if (
            context
            and previous
            and (previous.path, previous.number + 1) != (line.path, line.number)
        ):
            out.append("--")
        text = line.text
        if len(text) > MAX_LINE_CHARS:
            text = f"{text[:MAX_LINE_CHARS]}… [{len(line.text)} chars]"
        sep = ":" if line.is_match else "-"
        row = f"{display_path(line.path, ctx)}{sep}{line.number}{sep}{text}"
        used += len(row.encode()) + 1
        if used > MAX_OUTPUT_BYTES and out:
            break
        out.append(row)
        matches += line.is_match
        previous = line
    return "\n".join(out), matches
