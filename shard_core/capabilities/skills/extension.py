"""The skills capability, installed through ExtensionApi like any third-party extension.

    skills = SkillsCapability(roots, trusted=..., sources=host.load_skills)
    await host.install("shard.skills", skills)

At install it discovers the skills: the injected roots, plus the skill sources the registered
skill loaders return (`sources()`, each a dict `{"path": str, "layer": "bundled" | "user" |
"project"}`: a folder of skill directories; layer defaults to "bundled", and a project source
still needs trust). Loader sources rank just above bundled skills, below the user's and the
project's, so an extension never shadows what the user wrote. It registers `load_skill` only when at
least one skill is live, and offers on the `prompt_sections` hook the catalog, the preloaded
skills (an agent definition's `skills`) and, per request, the activated skills that compaction
folded away (activation.py).

`only` limits the live skills to those names (an agent definition's or a create request's
`skills`); `preload` puts those skills' bodies in the prompt from the first request.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from shard_core.capabilities.skills.activation import MAX_ACTIVATED_BYTES, ActivationScan
from shard_core.capabilities.skills.catalog import catalog_section
from shard_core.capabilities.skills.command import DESCRIPTION, skills_command
from shard_core.capabilities.skills.discovery import load_skills
from shard_core.capabilities.skills.load_tool import LoadSkillTool, load
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
        only: Sequence[str] | None = None,
        preload: Sequence[str] = (),
    ) -> None:
        self.roots = list(roots)
        self.trusted = trusted
        self.sources = sources
        self.only = None if only is None else list(only)
        self.preload = list(preload)
        self.registry = SkillRegistry()
        self.preloaded: SystemSection | None = None
        self.activations = ActivationScan()

    def __call__(self, api: ExtensionApi) -> None:
        extra, notes = self._source_roots()
        bundled = [r for r in self.roots if r.layer == "bundled"]
        rest = [r for r in self.roots if r.layer != "bundled"]
        self.registry = load_skills([*bundled, *extra, *rest], trusted=self.trusted)
        self.registry.diagnostics[:0] = notes
        if self.only is not None:
            _limit(self.registry, self.only)
        # Even with no skill live: `/skills` then says why (e.g. project skills need trust).
        api.register_command("skills", DESCRIPTION, skills_command(lambda: self.registry))
        if not self.registry.skills:
            return
        self.preloaded = preloaded_section(self.registry, self.preload)
        api.register_tool(LoadSkillTool(lambda: self.registry))
        api.on(PROMPT_SECTIONS_EVENT, self.sections)

    def sections(self, branch: Sequence[SessionEntry]) -> list[SystemSection]:
        """The catalog and preloaded skills (stable), then what compaction folded (volatile)."""
        found = [catalog_section(self.registry), self.preloaded]
        skip = self.preload if self.preloaded else ()
        found.append(self.activations.section(branch, skip=skip))
        return [s for s in found if s is not None]

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


def _limit(registry: SkillRegistry, names: Sequence[str]) -> None:
    """Keep only `names`; a name no discovered skill has is a warning, not a failure."""
    missing = [n for n in names if n not in registry.skills]
    registry.skills = {n: r for n, r in registry.skills.items() if n in names}
    if missing:
        registry.diagnostics.append(
            SkillDiagnostic("warning", f"no skill named {', '.join(missing)} (asked for by name)")
        )


def preloaded_section(registry: SkillRegistry, names: Sequence[str]) -> SystemSection | None:
    """`## Preloaded Skills`: the named skills' bodies, whole, within the activated-skills cap."""
    bodies: list[str] = []
    used = 0
    for name in names:
        record = registry.get(name)
        if record is None:
            continue
        result = load(record)
        size = len(result.text.encode("utf-8"))
        if result.is_error or used + size > MAX_ACTIVATED_BYTES:
            reason = result.text if result.is_error else "over the preload limit"
            registry.diagnostics.append(SkillDiagnostic("warning", f"not preloaded: {reason}"))
            continue
        used += size
        bodies.append(result.text)
    if not bodies:
        return None
    text = "\n\n".join(["## Preloaded Skills", *bodies])
    return SystemSection(name="skills:preloaded", text=text, stable=True)


def _root(spec: dict[str, Any]) -> SkillRoot | None:
    path, layer = spec.get("path"), spec.get("layer", "bundled")
    if not isinstance(path, str | Path) or layer not in LAYERS:
        return None
    return SkillRoot(Path(path).expanduser(), layer, f"loader:{layer}")
