"""Checking a create request, and turning a manifest into the kernel's `KERNEL_SHARD_*` env.

Every problem is a `BadRequestError` whose message says what to fix; nothing here starts anything.
Lists are bounded (`LIMITS`) before any rule is parsed or anything written. The rules themselves
never travel in the kernel's environment, whose size the OS bounds (20,000 rules made the kernel
start fail with "Argument list too long"): the kernel reads them from the manifest.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from shard_core.capabilities.goals import goal_text
from shard_core.capabilities.skills import default_roots, load_skills
from shard_core.engine.agent_definitions import load_agent_definitions
from shard_core.engine.frontmatter import valid_name
from shard_core.engine.permissions.rules import parse_rule
from shard_core.engine.state import config_dir, shard_home
from shard_core.protocol.orchestrator import AgentCreateCommand
from shard_core.providers.models import parse_model
from shard_core.types.errors import ConfigError
from shard_kernel.agent_env import FROM_MANIFEST, PERMISSIONS_VARIABLE, kernel_hint, trusts_project
from shard_kernel.gateway.manifest import AgentManifest

MODES = ("plan", "build")
NUMBERS: dict[str, tuple[float, float, str]] = {"permission_timeout": (0.0, 86400.0, "seconds")}
"""Every numeric field of a create request: (above this, at most this, unit). JSON as Python
reads it has Infinity and NaN, and nothing else bounds a number from above; a day is far longer
than anyone waits for a permission answer."""
MAX_RULES = 1_000
"""Rules per list (allow, ask, deny)."""
MAX_RULE_CHARS = 4_096
MAX_RULES_BYTES = 256 * 1024
"""UTF-8 bytes of every rule of a request together."""
MAX_SKILLS = 100
NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9 ._-]{0,62}[A-Za-z0-9._-])?")


class BadRequestError(Exception):
    """A client mistake: answered with 400 and this message."""


def parse_json_object(body: bytes) -> dict[str, Any]:
    if not body.strip():
        return {}
    try:
        value = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadRequestError(f"the request body is not valid JSON: {_json_problem(exc)}") from None
    except RecursionError:
        raise BadRequestError("the request body nests too deeply: send a flatter object") from None
    if not isinstance(value, dict):
        raise BadRequestError("the request body must be a JSON object")
    return value  # type: ignore[return-value]


def _json_problem(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at line {exc.lineno} column {exc.colno}"
    if isinstance(exc, UnicodeDecodeError):
        return "it is not UTF-8"
    return "a number has too many digits"  # Python reads at most 4300 digits into an int


def parse_create(body: dict[str, Any], *, trusted: bool | None = None) -> AgentCreateCommand:
    """A valid create command, or BadRequestError naming every field to fix. `trusted`: whether
    the server's kernels read project files (`ShardGateway.trust_project`; None: what
    `KERNEL_SHARD_TRUST_PROJECT` says, the setting's default)."""
    trusted = trusts_project() if trusted is None else trusted
    for name in NUMBERS:
        value = body.get(name)
        if isinstance(value, str):  # "1e999": pydantic reads a number from a string too
            try:
                value = float(value)
            except ValueError:
                continue  # not a number at all: the model says so
        if isinstance(value, int | float):  # bool too: true is not 1 second
            _check_number(name, value)
    try:
        command = AgentCreateCommand.model_validate({**body, "type": "agent_create"})
    except ValidationError as exc:
        raise BadRequestError(_describe(exc)) from None
    for name in NUMBERS:  # a number sent as a string ("1e999") is one only now
        _check_number(name, getattr(command, name))
    _check_bounds(command)
    _check_cwd(command.cwd)
    if command.agent is not None:
        command = _with_definition(command, explicit_mode="mode" in body, trusted=trusted)
    if command.model is not None:
        _check_model(command.model)
    if command.mode not in MODES:
        raise BadRequestError(f"mode {command.mode!r} is unknown: use one of {', '.join(MODES)}")
    if command.name is not None and not NAME.fullmatch(command.name):
        raise BadRequestError(
            "name must be 1-64 letters, digits, spaces, '.', '_' or '-', starting with a "
            "letter or digit and not ending with a space"
        )
    _check_rules(command)
    _check_skills_exist(command, trusted)
    return _with_goal(command)


def _with_goal(command: AgentCreateCommand) -> AgentCreateCommand:
    """The goal as a session keeps it (one line), or a 400 when it is over the cap."""
    if command.goal is None:
        return command
    try:
        return command.model_copy(update={"goal": goal_text([command.goal])})
    except ConfigError as exc:
        raise BadRequestError(f"goal: {exc}") from None


def _check_bounds(command: AgentCreateCommand) -> None:
    """Each list's length, each rule's, and the rules' bytes together, before any is parsed."""
    permissions = command.permissions
    total = 0
    for kind, rules in (("allow", permissions.allow), ("ask", permissions.ask),
                        ("deny", permissions.deny)):  # fmt: skip
        if len(rules) > MAX_RULES:
            raise BadRequestError(
                f"permissions.{kind}: {len(rules):,} rules; at most {MAX_RULES:,} a list"
            )
        for index, rule in enumerate(rules):
            if len(rule) > MAX_RULE_CHARS:
                raise BadRequestError(
                    f"permissions.{kind}[{index}]: a rule of {len(rule):,} characters; at most "
                    f"{MAX_RULE_CHARS:,}"
                )
            total += len(rule.encode("utf-8", "surrogatepass"))
    if total > MAX_RULES_BYTES:
        raise BadRequestError(
            f"permissions: the rules take {total:,} bytes together; at most {MAX_RULES_BYTES:,}"
        )
    if len(command.skills) > MAX_SKILLS:
        raise BadRequestError(f"skills: {len(command.skills):,} names; at most {MAX_SKILLS}")


def _check_skills_exist(command: AgentCreateCommand, trusted: bool) -> None:
    """Every named skill is one the agent's kernel will find for this cwd (as an unknown agent
    definition is a 400, so is an unknown skill: the agent would start without it)."""
    if not command.skills:
        return
    roots = default_roots(Path(command.cwd), shard_home=shard_home(), user_home=Path.home())
    found = load_skills(roots, trusted=trusted).skills
    missing = [name for name in command.skills if name not in found]
    if missing:
        hint = "" if trusted else "; project skills need KERNEL_SHARD_TRUST_PROJECT=1"
        raise BadRequestError(
            f"skills: no skill named {', '.join(repr(n) for n in missing)} for this cwd (looked "
            f"in SHARD_HOME/skills, ~/.agents/skills and the project's .shard/skills and "
            f".agents/skills{hint})"
        )


def _with_definition(
    command: AgentCreateCommand, *, explicit_mode: bool, trusted: bool
) -> AgentCreateCommand:
    """The named definition must exist for this cwd (project ones only when the server's
    kernels trust projects); its model and mode fill what the request left out."""
    name = command.agent or ""
    if not valid_name(name):
        raise BadRequestError(f"agent: {_short(name)} is not an agent definition name (kebab-case)")
    definitions = load_agent_definitions(
        Path(command.cwd), home=shard_home(), config=config_dir(), trusted=trusted
    )
    try:
        definition = definitions.require(name)
    except ConfigError as exc:
        raise BadRequestError(f"agent: {kernel_hint(str(exc))}") from None
    update: dict[str, Any] = {}
    if command.model is None and definition.model:
        update["model"] = definition.model
    if not explicit_mode and definition.mode:
        update["mode"] = definition.mode
    return command.model_copy(update=update)


def _check_number(name: str, value: float) -> None:
    above, most, unit = NUMBERS[name]
    finite = not isinstance(value, float) or math.isfinite(value)  # an int may not fit a float
    if isinstance(value, bool) or not (finite and above < value <= most):
        raise BadRequestError(
            f"{name} must be a number of {unit} above {above:g} and at most {most:g}, "
            f"not {_number(value)}"
        )


def _number(value: float) -> str:
    """`value` as JSON spells it (Python's json writes Infinity and NaN), cut when very long."""
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _describe(exc: ValidationError) -> str:
    parts: list[str] = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error["loc"]) or "body"
        if error["type"] == "extra_forbidden":
            parts.append(f"{where}: unknown field")
        else:
            parts.append(f"{where}: {error['msg']}")
    return "; ".join(parts)


def _check_cwd(cwd: str) -> None:
    path = Path(cwd).expanduser()
    if not path.is_absolute():
        raise BadRequestError(f"cwd {_short(cwd)} must be an absolute path")
    try:
        if not path.exists():
            raise BadRequestError(f"cwd {_short(cwd)} does not exist")
        if not path.is_dir():
            raise BadRequestError(f"cwd {_short(cwd)} is not a directory")
        path.resolve(strict=True)
    except OSError as exc:  # a name too long, a directory we may not look into, a loop
        reason = exc.strerror or type(exc).__name__
        raise BadRequestError(f"cwd {_short(cwd)} cannot be used: {reason.lower()}") from None


def _short(text: str, limit: int = 200) -> str:
    """`text` quoted, cut in the middle when long (so an error body stays readable)."""
    if len(text) <= limit:
        return repr(text)
    return repr(text[: limit // 2]) + " … " + repr(text[-limit // 2 :])


def _check_model(model: str) -> None:
    from shard_kernel.registrations import provider_specs  # runs extensions: when asked

    try:
        spec = parse_model(model, provider_specs())
    except ConfigError as exc:
        raise BadRequestError(str(exc)) from None
    scripted_file = spec.provider == "scripted" and spec.model != "demo"
    if scripted_file and not Path(spec.model).expanduser().is_file():
        raise BadRequestError(f"model {model!r}: no script file at {spec.model}")


def _check_rules(command: AgentCreateCommand) -> None:
    from shard_kernel.registrations import declare_tool_shapes  # runs extensions: when asked

    declare_tool_shapes()  # the agent will have them: `NotebookEdit(…)`, `Peek(src/**)` are valid
    permissions = command.permissions
    if permissions.ask:
        raise BadRequestError(
            "permissions.ask is not supported yet: anything not allowed or denied is asked"
        )
    for skill in command.skills:
        if not valid_name(skill):
            raise BadRequestError(
                f"skills: {_short(skill)} is not a skill name (kebab-case: a-z, 0-9, hyphens)"
            )
    for kind, rules in (("allow", permissions.allow), ("deny", permissions.deny)):
        for rule in rules:
            if "\n" in rule or "\r" in rule:
                raise BadRequestError(f"permissions.{kind}: a rule cannot contain a line break")
            try:
                parse_rule(rule)
            except ConfigError as exc:
                raise BadRequestError(f"permissions.{kind}: {exc}") from None


def kernel_env(manifest: AgentManifest) -> dict[str, str]:
    """The agent's configuration as the only thing a kernel (or a kernel gateway) is given; its
    rules stay in the manifest (`KERNEL_SHARD_PERMISSIONS=manifest`, see agent_env.py)."""
    env = {
        "KERNEL_SHARD_AGENT_ID": manifest.id,
        "KERNEL_SHARD_CWD": manifest.cwd,
        "KERNEL_SHARD_MODE": manifest.mode,
        "KERNEL_SHARD_HEADLESS_POLICY": manifest.headless_policy,
        "KERNEL_SHARD_PERMISSION_TIMEOUT": repr(manifest.permission_timeout),
        PERMISSIONS_VARIABLE: FROM_MANIFEST,
    }
    if manifest.rules_from:
        env["KERNEL_SHARD_RULES_FROM"] = manifest.rules_from
    if manifest.model:
        env["KERNEL_SHARD_MODEL"] = manifest.model
    if manifest.skills:
        env["KERNEL_SHARD_SKILLS"] = "\n".join(manifest.skills)
    if manifest.agent_definition:
        env["KERNEL_SHARD_AGENT_DEFINITION"] = manifest.agent_definition
    if manifest.goal:
        env["KERNEL_SHARD_GOAL"] = manifest.goal
    return env
