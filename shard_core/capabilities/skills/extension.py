"""The skills capability, installed through ExtensionApi like any third-party extension.

    skills = SkillsCapability(roots, trusted=..., sources=host.load_skills)
    await host.install("shard.skills", skills)

At install it discovers the skills: the injected roots, plus the skill sources the registered
skill loaders return (`sources()`, each a dict `{"path": str, "layer": "bundled" | "user" |
"project"}`: a folder of skill directories; layer defaults to "bundled", and a project source
still needs trust). Loader sources rank just above bundled skills, below the user's and the
project's, so an extension never shadows what the user wrote. It registers `load_skill` only when at
least one skill is live, and offers the catalog section on the `prompt_sections` hook.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from shard_core.capabilities.skills.catalog import catalog_section
from shard_core.capabilities.skills.discovery import load_skills
from shard_core.capabilities.skills.load_tool import LoadSkillTool
from shard_core.capabilities.skills.registry import (
    LAYERS,
    SkillDiagnostic,
    SkillRegistry,
    SkillRoot,
)
from shard_core.contracts import ExtensionApi
from shard_core.engine.prompt import PROMPT_SECTIONS_EVENT
from shard_core.types import SessionEntry, SystemSection


class SkillsCapability:
    def __init__(
        self,
        roots: Sequence[SkillRoot],
        *,
        trusted: bool,
        sources: Callable[[], Sequence[dict[str, Any]]] = lambda: (),
    ) -> None:
        self.roots = list(roots)
        self.trusted = trusted
        self.sources = sources
        self.registry = SkillRegistry()

    def __call__(self, api: ExtensionApi) -> None:
        extra, notes = self._source_roots()
        bundled = [r for r in self.roots if r.layer == "bundled"]
        rest = [r for r in self.roots if r.layer != "bundled"]
        self.registry = load_skills([*bundled, *extra, *rest], trusted=self.trusted)
        self.registry.diagnostics[:0] = notes
        if not self.registry.skills:
            return
        api.register_tool(LoadSkillTool(lambda: self.registry))
        api.on(PROMPT_SECTIONS_EVENT, self.sections)

    def sections(self, branch: Sequence[SessionEntry]) -> list[SystemSection]:
        del branch  # the catalog does not depend on the conversation
        section = catalog_section(self.registry)
        return [section] if section else []

    def _source_roots(self) -> tuple[list[SkillRoot], list[SkillDiagnostic]]:
        roots: list[SkillRoot] = []
        notes: list[SkillDiagnostic] = []
        for spec in self.sources():
            root = _root(spec)
            if root is None:
                notes.append(SkillDiagnostic("warning", f"ignored skill source {spec!r}"))
            else:
                roots.append(root)
        return roots, notes


def _root(spec: dict[str, Any]) -> SkillRoot | None:
    path, layer = spec.get("path"), spec.get("layer", "bundled")
    if not isinstance(path, str | Path) or layer not in LAYERS:
        return None
    return SkillRoot(Path(path).expanduser(), layer, f"loader:{layer}")
