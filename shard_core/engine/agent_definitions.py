"""AgentDefinitionLoader: named agent recipes in `agents/*.md`, merged by parsed name.

    definitions = load_agent_definitions(cwd, home=shard_home(), config=config_dir(),
                                         trusted=trust_project)
    reviewer = definitions.require("reviewer")   # ConfigError naming the known ones

A definition is a Markdown file whose front-matter says what an agent built from it is:

    ---
    name: reviewer                 # kebab-case; defaults to the file's stem
    description: Reviews a diff    # required: what a launcher shows and picks by
    model: anthropic/claude-sonnet-4-5   # default model (an explicit --model wins)
    mode: plan                     # default mode (an explicit --mode wins)
    tools: [read, grep, find, ls]  # allowlist (a list or "read, grep"); absent: every tool
    skills: [code-review]          # only these skills, preloaded into the prompt
    permissions: {allow: [...], ask: [...], deny: [...]}   # rules added to the gate's
    names: [Ada, Grace]            # friendly names for agents launched from it
    backend: {acp: [opencode, acp]}   # who runs the child (absent: a Shard kernel)
    ---
    The body: instructions added to the agent's system prompt.

Roots, lowest precedence first: the legacy `SHARD_HOME/agents`, the config dir's `agents/`
(authoritative for the user), then `.shard/agents` from the git root down to cwd. Project
definitions are read only with project trust; otherwise one diagnostic per skipped folder names
the flag that would include it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

from shard_core.engine.context_files import project_dirs
from shard_core.engine.frontmatter import MAX_NAME, split_front_matter, valid_name
from shard_core.engine.permissions.sources import RuleSet
from shard_core.engine.plurals import counted
from shard_core.types.errors import ConfigError

__all__ = [
    "AgentDefinition",
    "AgentDefinitions",
    "DefinitionRoot",
    "definition_roots",
    "load_agent_definitions",
    "parse_agent_definition",
]

DefinitionLayer = Literal["user", "project"]
MAX_DEFINITION_BYTES = 256 * 1024
KNOWN_KEYS = (
    "name", "description", "model", "mode", "tools", "skills", "permissions", "names", "backend",
)  # fmt: skip
TRUST_HINT = "project agent definitions need --trust-project"


@dataclass(frozen=True)
class AgentDefinition:
    name: str
    description: str
    prompt: str
    """the Markdown body: instructions for the agent's system prompt ('' when empty)"""
    path: Path
    layer: DefinitionLayer
    model: str | None = None
    mode: str | None = None
    tools: tuple[str, ...] | None = None
    """the tool allowlist; None keeps every registered tool"""
    skills: tuple[str, ...] | None = None
    """only these skills (preloaded); None keeps every discovered skill"""
    allow: tuple[str, ...] = ()
    ask: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    """friendly names for agents launched from this definition (may be empty)"""
    backend: tuple[str, Any] | None = None
    """who runs an agent launched from this definition as a subagent: (kind, its spec), e.g.
    ("acp", ["opencode", "acp"]); None: a Shard kernel. The gateway looks the kind up among
    the backends registered with its coordinator, and that backend checks the spec."""
    metadata: dict[str, Any] = field(default_factory=dict[str, Any])
    """front-matter keys Shard does not act on, kept for inspection"""

    def rules(self) -> RuleSet:
        """The definition's permission rules, each naming this file as its source."""
        source = f"agent definition {self.name} ({self.path})"
        return RuleSet.parse(source, allow=self.allow, ask=self.ask, deny=self.deny)

    def prompt_text(self) -> str:
        """The body as a system-prompt section ('' when the body is empty)."""
        return f"# Agent definition: {self.name}\n\n{self.prompt}" if self.prompt else ""


@dataclass(frozen=True)
class DefinitionRoot:
    path: Path
    layer: DefinitionLayer


@dataclass
class AgentDefinitions:
    """The live definitions by name, and what loading them had to say."""

    definitions: dict[str, AgentDefinition] = field(default_factory=dict[str, AgentDefinition])
    diagnostics: list[str] = field(default_factory=list[str])

    def get(self, name: str) -> AgentDefinition | None:
        return self.definitions.get(name)

    def require(self, name: str) -> AgentDefinition:
        found = self.definitions.get(name)
        if found is None:
            known = ", ".join(self.names()) or "none"
            hint = [d for d in self.diagnostics if "--trust-project" in d]
            extra = f" ({hint[0]})" if hint else ""
            raise ConfigError(f"no agent definition named {name!r}; known: {known}{extra}")
        return found

    def names(self) -> list[str]:
        return sorted(self.definitions)

    def __len__(self) -> int:
        return len(self.definitions)


def definition_roots(cwd: Path, *, home: Path, config: Path) -> list[DefinitionRoot]:
    """Lowest precedence first: legacy SHARD_HOME/agents, config agents/, project ancestors."""
    roots = [DefinitionRoot(home / "agents", "user"), DefinitionRoot(config / "agents", "user")]
    roots += [DefinitionRoot(d / ".shard" / "agents", "project") for d in project_dirs(cwd)]
    return roots


def load_agent_definitions(
    cwd: Path | str, *, home: Path, config: Path, trusted: bool
) -> AgentDefinitions:
    """Every definition an agent working in `cwd` can be built from."""
    roots = definition_roots(Path(cwd).expanduser().resolve(), home=home, config=config)
    return load_from_roots(roots, trusted=trusted)


def load_from_roots(roots: Iterable[DefinitionRoot], *, trusted: bool) -> AgentDefinitions:
    found = AgentDefinitions()
    seen: set[Path] = set()
    for root in roots:
        files = _files(root.path)
        if not files:
            continue
        real = root.path.resolve()
        if real in seen:  # the config dir and SHARD_HOME may be one folder
            continue
        seen.add(real)
        if root.layer == "project" and not trusted:
            found.diagnostics.append(
                f"skipped {root.path} ({counted(len(files), 'file')}): {TRUST_HINT}"
            )
            continue
        for path in files:
            _merge(found, path, root.layer)
    return found


def _files(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.glob("*.md") if p.is_file())
    except OSError:
        return []


def _merge(found: AgentDefinitions, path: Path, layer: DefinitionLayer) -> None:
    try:
        size = path.stat().st_size
        if size > MAX_DEFINITION_BYTES:
            raise ValueError(f"{size} bytes; the limit is {MAX_DEFINITION_BYTES}")
        parsed = parse_agent_definition(path.read_text(encoding="utf-8"), path, layer)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        parsed = f"unreadable: {exc}"
    if isinstance(parsed, str):
        found.diagnostics.append(f"skipped agent definition {path}: {parsed}")
        return
    previous = found.definitions.get(parsed.name)
    if previous is not None and previous.path.parent == path.parent:
        found.diagnostics.append(
            f"agent definition {parsed.name!r}: {path} overrides {previous.path} in one folder"
        )
    found.definitions[parsed.name] = parsed


def parse_agent_definition(
    text: str, path: Path, layer: DefinitionLayer = "user"
) -> AgentDefinition | str:
    """The definition, or a sentence saying why the file is not one."""
    split = split_front_matter(text, path.name)
    if isinstance(split, str):
        return split
    front, body = split
    name = front.get("name", path.stem)
    if not valid_name(name):
        return f"name {name!r} is not kebab-case (a-z, 0-9, single hyphens, at most {MAX_NAME})"
    description = front.get("description")
    if not isinstance(description, str) or not description.strip():
        return "description is missing or empty"
    try:
        rules = _permissions(front.get("permissions"))
        definition = AgentDefinition(
            name=name,
            description=" ".join(description.split()),
            prompt=body.strip(),
            path=path,
            layer=layer,
            model=_text(front, "model"),
            mode=_text(front, "mode"),
            tools=_names(front.get("tools"), "tools"),
            skills=_names(front.get("skills"), "skills"),
            allow=rules["allow"],
            ask=rules["ask"],
            deny=rules["deny"],
            names=_names(front.get("names"), "names") or (),
            backend=_backend(front.get("backend")),
            metadata={k: v for k, v in front.items() if k not in KNOWN_KEYS},
        )
    except ValueError as exc:
        return str(exc)
    if definition.skills and any(not valid_name(s) for s in definition.skills):
        return f"skills {list(definition.skills)!r}: skill names are kebab-case"
    return definition


def _text(front: dict[str, Any], key: str) -> str | None:
    value = front.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{key} must be a non-empty string, not {value!r}")
    return value.strip()


def _names(value: object, key: str, *, comma: bool = True) -> tuple[str, ...] | None:
    """A YAML list of strings, or one string (comma-separated when `comma`); None if absent."""
    if value is None:
        return None
    if isinstance(value, str):
        items = value.split(",") if comma else [value]
    elif isinstance(value, list) and all(isinstance(v, str) for v in cast(list[object], value)):
        items = cast(list[str], value)
    else:
        raise ValueError(f"{key} must be a list of names or a comma-separated string")
    return tuple(dict.fromkeys(s for v in items if (s := v.strip())))


def _backend(value: object) -> tuple[str, Any] | None:
    """`backend: {kind: spec}`: one key, the kind a registered backend answers to."""
    if value is None:
        return None
    if not isinstance(value, dict) or len(cast(dict[object, object], value)) != 1:
        raise ValueError("backend must be a mapping with one key, e.g. {acp: [opencode, acp]}")
    ((kind, spec),) = cast(dict[object, object], value).items()
    if not isinstance(kind, str) or not valid_name(kind):
        raise ValueError(f"backend kind {kind!r} is not kebab-case")
    return kind, spec


def _permissions(value: object) -> dict[str, tuple[str, ...]]:
    rules: dict[str, tuple[str, ...]] = {"allow": (), "ask": (), "deny": ()}
    if value is None:
        return rules
    if not isinstance(value, dict):
        raise ValueError("permissions must be a mapping {allow, ask, deny} of rule lists")
    for key, raw in cast(dict[object, object], value).items():
        if key not in rules:
            raise ValueError(f"permissions.{key}: use allow, ask or deny")
        # A rule may hold commas: a string is one rule, never split.
        rules[str(key)] = _names(raw, f"permissions.{key}", comma=False) or ()
    try:
        RuleSet.parse("agent definition", **{k: list(v) for k, v in rules.items()})
    except ConfigError as exc:
        raise ValueError(f"permissions: {exc}") from None
    return rules
