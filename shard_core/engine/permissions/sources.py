"""RuleSet: permission rules gathered from every source, each remembering where it came from.

Sources, most specific first (the order only decides which rule an explanation names; a deny
from any source wins regardless):

1. per-run rules: `--allow RULE` / `--deny RULE` flags, or what the agent was started with (a
   REST create, a notebook's metadata) — `given_by` names which, so an explanation says so
2. project rule files `.shard/rules/*.json` in the cwd and its ancestors up to the git root —
   their deny and ask rules always apply; their allow rules only with project trust (otherwise
   they are skipped and a diagnostic says so)
3. user rule files `SHARD_HOME/rules/*.json`
4. user config: `permissions: {allow, ask, deny}` in config.json (labelled with its path)
5. the agent's own rule file `SHARD_HOME/agents/<id>/rules.json`: what a person added while it
   ran ("reject always" in an ACP host adds a deny rule there), so a resumed or reloaded agent
   keeps it (`add_agent_rule`)

Grants (allow always answers) are added by the gate and labelled "allow-always grant".

A rule file is `{"allow": [...], "ask": [...], "deny": [...]}` (every key optional).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from shard_core.engine.config import PermissionsConfig
from shard_core.engine.permissions.rules import Rule, parse_rule
from shard_core.engine.state import config_dir, shard_home, write_private
from shard_core.types.errors import ConfigError

__all__ = [
    "AGENT_RULES_FILE",
    "AGENT_RULES_LABEL",
    "Kind",
    "RuleSet",
    "SourcedRule",
    "add_agent_rule",
    "agent_rules_path",
    "load_rules",
    "read_rule_file",
]

Kind = Literal["allow", "ask", "deny"]
AGENT_RULES_FILE = "rules.json"
AGENT_RULES_LABEL = "this agent's rules"


@dataclass(frozen=True)
class SourcedRule:
    rule: Rule
    source: str

    @property
    def text(self) -> str:
        return self.rule.text


@dataclass(frozen=True)
class RuleSet:
    """Allow, ask and deny rules plus notes about what was skipped."""

    allow: tuple[SourcedRule, ...] = ()
    ask: tuple[SourcedRule, ...] = ()
    deny: tuple[SourcedRule, ...] = ()
    diagnostics: tuple[str, ...] = field(default=())

    @classmethod
    def parse(
        cls,
        source: str,
        *,
        allow: Iterable[str] = (),
        ask: Iterable[str] = (),
        deny: Iterable[str] = (),
    ) -> RuleSet:
        """Rules from plain strings; a bad one is a ConfigError naming it and its source."""
        return cls(
            allow=_parse_all(allow, source),
            ask=_parse_all(ask, source),
            deny=_parse_all(deny, source),
        )

    def __add__(self, other: RuleSet) -> RuleSet:
        return RuleSet(
            allow=self.allow + other.allow,
            ask=self.ask + other.ask,
            deny=self.deny + other.deny,
            diagnostics=self.diagnostics + other.diagnostics,
        )


def _parse_all(texts: Iterable[str], source: str) -> tuple[SourcedRule, ...]:
    parsed: list[SourcedRule] = []
    for text in texts:
        try:
            parsed.append(SourcedRule(parse_rule(text), source))
        except ConfigError as exc:
            raise ConfigError(f"{exc} (from {source})") from None
    return tuple(parsed)


def load_rules(
    cwd: Path,
    permissions: PermissionsConfig | None = None,
    *,
    trust_project: bool = False,
    allow: Sequence[str] = (),
    deny: Sequence[str] = (),
    home: Path | None = None,
    added: RuleSet | None = None,
    given_by: str | None = None,
    config_file: Path | None = None,
    agent_id: str | None = None,
) -> RuleSet:
    """Every rule that applies to an agent working in `cwd`; `added` (an agent definition's
    rules, with their own source) ranks just after the per-run rules. `given_by` says where
    `allow`/`deny` came from (default: the `--allow`/`--deny` flags); `config_file` is where
    `permissions` was read (default: the user config.json); `agent_id` adds that agent's own
    rule file."""
    rules = RuleSet.parse(given_by or "--deny flag", deny=deny)
    rules += RuleSet.parse(given_by or "--allow flag", allow=allow)
    rules += added or RuleSet()
    user_dir = Path(os.path.realpath((home or shard_home()) / "rules"))
    for directory in _project_rule_dirs(cwd):
        if Path(os.path.realpath(directory)) != user_dir:
            rules += _load_dir(directory, trusted=trust_project, label="project rules")
    rules += _load_dir(user_dir, trusted=True, label="user rules")
    if permissions is not None:
        rules += RuleSet.parse(
            f"config file {config_file or config_dir() / 'config.json'}",
            allow=permissions.allow,
            ask=permissions.ask,
            deny=permissions.deny,
        )
    if agent_id is not None:
        own = agent_rules_path(agent_id, home)
        if own.is_file():
            rules += read_rule_file(own, label=AGENT_RULES_LABEL)
    return rules


def agent_rules_path(agent_id: str, home: Path | None = None) -> Path:
    """`SHARD_HOME/agents/<id>/rules.json`: the rules a person added to this one agent."""
    if not agent_id or agent_id in (".", "..") or "/" in agent_id or "\\" in agent_id:
        raise ConfigError(f"invalid agent id for rules: {agent_id!r}")
    return (home or shard_home()) / "agents" / agent_id / AGENT_RULES_FILE


def add_agent_rule(agent_id: str, kind: Kind, rule: str, home: Path | None = None) -> RuleSet:
    """Add `rule` to the agent's own rule file (created owner-only; an identical rule is kept
    once) and return it as a RuleSet to add to a running gate. A file that cannot be read is
    never overwritten: the ConfigError says so."""
    path = agent_rules_path(agent_id, home)
    parsed = parse_rule(rule)
    lists: dict[str, list[str]] = {"allow": [], "ask": [], "deny": []}
    if path.exists():  # a file it cannot read raises here, before anything is written
        held = read_rule_file(path)
        lists = {
            "allow": [r.text for r in held.allow],
            "ask": [r.text for r in held.ask],
            "deny": [r.text for r in held.deny],
        }
    if parsed.text not in lists[kind]:
        lists[kind].append(parsed.text)
        kept = {k: v for k, v in lists.items() if v}
        write_private(path, (json.dumps(kept, indent=2) + "\n").encode("utf-8"))
    return RuleSet.parse(f"{AGENT_RULES_LABEL} {path}", **{kind: [parsed.text]})


def _project_rule_dirs(cwd: Path) -> list[Path]:
    """`.shard/rules` in the cwd and each ancestor up to the git root (only the cwd without one)."""
    start = Path(os.path.realpath(cwd))
    chain = [start, *start.parents]
    root = next((i for i, d in enumerate(chain) if (d / ".git").exists()), 0)
    return [d / ".shard" / "rules" for d in chain[: root + 1]]


def _load_dir(directory: Path, *, trusted: bool, label: str) -> RuleSet:
    if not directory.is_dir():
        return RuleSet()
    rules = RuleSet()
    for path in sorted(directory.glob("*.json")):
        rules += read_rule_file(path, trusted=trusted, label=label)
    return rules


def read_rule_file(path: Path, *, trusted: bool = True, label: str = "rule file") -> RuleSet:
    """One `{"allow", "ask", "deny"}` file; untrusted files lose their allow rules. Its rules
    are labelled `<label> <path>`."""
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read rule file: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: invalid JSON at line {exc.lineno}: {exc.msg}") from None
    lists = _rule_lists(path, data)
    skipped = () if trusted or not lists["allow"] else lists.pop("allow")
    rules = RuleSet.parse(f"{label} {path}", **lists)
    if skipped:
        count = "1 allow rule" if len(skipped) == 1 else f"{len(skipped)} allow rules"
        note = (
            f"{path}: skipped {count} ({', '.join(skipped)}): "
            "project rules allow nothing without project trust (--trust-project)"
        )
        rules = RuleSet(rules.allow, rules.ask, rules.deny, (note,))
    return rules


class _RuleFile(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    allow: list[str] = Field(default_factory=list[str])
    ask: list[str] = Field(default_factory=list[str])
    deny: list[str] = Field(default_factory=list[str])


def _rule_lists(path: Path, data: object) -> dict[str, list[str]]:
    try:
        parsed = _RuleFile.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'file'}: {e['msg']}" for e in exc.errors()
        )
        raise ConfigError(
            f'{path}: expected {{"allow": [...], "ask": [...], "deny": [...]}}: {problems}'
        ) from None
    return {"allow": parsed.allow, "ask": parsed.ask, "deny": parsed.deny}
