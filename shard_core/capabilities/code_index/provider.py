"""CodeIntelligence: what the capability registers — the index's outlines, symbols and
signatures, the language server's diagnostics after a change, and the session's focus (files
mentioned or changed), which personalises the repo map."""

from __future__ import annotations

import re
from collections.abc import Coroutine, Iterable, Sequence
from pathlib import Path
from typing import Any

from shard_core.capabilities.code_index import repo_map
from shard_core.capabilities.code_index.index import CodeIndex
from shard_core.capabilities.code_index.languages import language_of
from shard_core.capabilities.code_index.lsp import Diagnostics
from shard_core.contracts.codeintel import DIAGNOSTICS_HEADING, Symbol
from shard_core.engine.plurals import counted

MAX_NEW_ERRORS = 10
PYTHON_PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg")
_WORD = re.compile(r"[\w./-]+\.\w+")


def looks_like_python(root: Path) -> bool:
    """A Python project's marks at the top of the workspace: a module or a project file."""
    if any((root / name).is_file() for name in PYTHON_PROJECT_FILES):
        return True
    return next(root.glob("*.py"), None) is not None


class CodeIntelligence:
    name = "code_index"

    def __init__(self, index: CodeIndex, diagnostics: Diagnostics) -> None:
        self.index = index
        self.diagnostics = diagnostics
        self.focus: dict[str, None] = {}
        """workspace-relative files mentioned or changed in the session, oldest first"""
        self._map_cache: tuple[object, list[repo_map.MapEntry]] | None = None
        self._graph: repo_map.Graph | None = None
        self._rank: dict[tuple[str, ...], list[float]] = {}
        """the last ranking per focus: the next one starts from it"""

    # ------------------------------------------------------------ CodeIntelligenceProvider

    def outline(self, path: str) -> list[Symbol]:
        return self.index.outline(path)

    def symbol(self, name: str) -> list[Symbol]:
        """From what is indexed: the first question begins the index near the focus."""
        self.index.begin(self.focus)
        return self.index.symbol(name)

    def signatures(self, path: str) -> list[str]:
        return self.index.signatures(path)

    def invalidate(self, path: str) -> None:
        self.index.invalidate(path)

    async def warm(self) -> None:
        """Start the language server ahead of the first edit, in a workspace that looks like
        Python (a top-level module or project file); elsewhere its first changed Python file
        starts it."""
        if self.diagnostics.command is not None and looks_like_python(self.index.root):
            await self.diagnostics.warm()

    def diagnose(self, paths: Sequence[str]) -> Coroutine[Any, Any, list[str]]:
        """The check is counted in flight at once (code_diagnostics waits for it), though it
        runs when the caller's task gets to it."""
        self.diagnostics.begin()
        return self._diagnose(paths)

    async def _diagnose(self, paths: Sequence[str]) -> list[str]:
        try:
            return await self._new_errors(paths)
        finally:
            self.diagnostics.end()

    async def _new_errors(self, paths: Sequence[str]) -> list[str]:
        lines: list[str] = []
        for raw in paths:
            checked = await self.diagnostics.check(Path(raw))
            if checked is None:
                continue
            new, found = checked
            lines += [f.text() for f in new[:MAX_NEW_ERRORS]]
            if len(new) > MAX_NEW_ERRORS:
                lines.append(f"(+{len(new) - MAX_NEW_ERRORS} more new errors)")
            if new and len(found) > len(new):
                earlier = counted(
                    len(found) - len(new), "earlier error remains", "earlier errors remain"
                )
                lines.append(f"({earlier} in this file)")
        return [f"{DIAGNOSTICS_HEADING}:", *lines] if lines else []

    # ------------------------------------------------------------ the session's focus

    def notice(self, paths: Iterable[str]) -> None:
        """Files the session mentioned or changed: they lead the repo map (and the index
        begins with them)."""
        for raw in paths:
            rel = self.index.relative(raw)
            if rel is not None and (rel in self.index.files or self._source(rel)):
                self.focus.pop(rel, None)
                self.focus[rel] = None

    def _source(self, rel: str) -> bool:
        return language_of(rel) is not None and (self.index.root / rel).is_file()

    def notice_text(self, text: str) -> None:
        """File names a prompt mentions (a path, or a base name the index knows)."""
        words = set(_WORD.findall(text))
        if not words:
            return
        known = {rel: rel.rsplit("/", 1)[-1] for rel in self.index.snapshot()}
        self.notice(rel for rel, base in known.items() if rel in words or base in words)

    def ranked(
        self, focus: Sequence[str] = (), names: Sequence[str] = ()
    ) -> list[repo_map.MapEntry]:
        files = [*self.focus, *focus]
        key = (self.index.version, tuple(files), tuple(names))
        if self._map_cache is not None and self._map_cache[0] == key:
            return self._map_cache[1]
        snapshot = self.index.snapshot()
        graph = self._graph
        if graph is None or graph.focus_names != frozenset(names):
            graph = repo_map.Graph(snapshot, names)
        updated = graph.update(snapshot)
        last = self._rank.get(tuple(files)) if updated is graph else None
        self._graph = updated
        rank = repo_map.pagerank(updated, set(files), last)
        self._rank = {tuple(files): rank}
        entries = repo_map.ranked_definitions(snapshot, updated, rank)
        self._map_cache = (key, entries)
        return entries
