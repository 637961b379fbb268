"""SDK: build an agent in-process. The one bootstrap every surface uses (CLI, kernel, magics).

    agent = await create_agent(cwd="project", model="scripted/demo")
    async for event in agent.prompt("fix the failing test"):
        ...
    await agent.close()

Bundled tools, modes, providers, the compactor, recall and the slash commands enter through the
ExtensionHost like any third-party extension; then `shard.extensions` entry points,
`SHARD_HOME/extensions/*.py`, and (only with `trust_project`) the project's
`.shard/extensions/*.py`.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shard_core.capabilities import prompt_commands
from shard_core.capabilities.assembly import credential_files, extension_settings, sandbox_policy
from shard_core.capabilities.checkpoints import CheckpointsCapability
from shard_core.capabilities.code_index import CodeIndexCapability
from shard_core.capabilities.commands import BuiltinCommands
from shard_core.capabilities.goals import GoalsCapability, goal_text
from shard_core.capabilities.hooks import HooksCapability
from shard_core.capabilities.mcp import install_mcp
from shard_core.capabilities.questions import QuestionsCapability
from shard_core.capabilities.skills import SkillsCapability, default_roots
from shard_core.capabilities.subagents import SubagentsCapability
from shard_core.capabilities.terminals import TerminalsCapability
from shard_core.capabilities.todos import TodosCapability
from shard_core.capabilities.web import WebCapability
from shard_core.contracts import Extension, ExtensionApi, ProviderSpec, UiBridge
from shard_core.contracts.tool import HostFiles
from shard_core.engine import lifecycle
from shard_core.engine.agent_definitions import (
    AgentDefinition,
    AgentDefinitions,
    load_agent_definitions,
)
from shard_core.engine.compaction import DeterministicCompactor
from shard_core.engine.config import ShardConfig, load_config
from shard_core.engine.context_files import load_context_files
from shard_core.engine.credentials import known_secrets, resolve_credential
from shard_core.engine.events import EventStream
from shard_core.engine.extension_host import ExtensionHost, registered_specs
from shard_core.engine.hook_points import HookPoints
from shard_core.engine.modes import bundled_modes
from shard_core.engine.permissions.gate import RuleGate
from shard_core.engine.permissions.sources import RuleSet, load_rules
from shard_core.engine.prompt import PROMPT_SECTIONS_EVENT, identity_section
from shard_core.engine.recall import RecallTool
from shard_core.engine.registry import AllowedTools
from shard_core.engine.session import AgentSession, SessionConfig
from shard_core.engine.session_store import SessionStore, find_session, load_lineage
from shard_core.engine.slash_commands import PromptTurn, run_command, split_command
from shard_core.engine.state import config_dir, shard_home, write_private
from shard_core.engine.usage_history import USAGE_FILE
from shard_core.protocol.events import CommandOutputEvent, Event, TurnEndEvent
from shard_core.protocol.orchestrator import HeadlessPolicy
from shard_core.providers.bundled import BUNDLED
from shard_core.providers.families import price
from shard_core.providers.models import create_provider, find_spec, resolve_default_model
from shard_core.tools import builtin_tools
from shard_core.tools.sandbox import Sandbox
from shard_core.tools.task_tools import tasks_extension
from shard_core.tools.tasks import BackgroundTasks
from shard_core.types import (
    ContextKind,
    ImageBlock,
    PermissionDetails,
    PermissionEntry,
    SystemSection,
)
from shard_core.types.errors import ConfigError

__all__ = ["Agent", "AgentOptions", "create_agent", "registered_providers", "run"]


@dataclass
class AgentOptions:
    cwd: Path | str = "."
    model: str | None = None
    mode: str | None = None  # None: the agent definition's, else "build"
    agent_id: str | None = None
    resume: str | Path | bool | None = None
    home: Path | None = None
    allow: Sequence[str] = ()
    deny: Sequence[str] = ()
    rules_from: str | None = None
    """where `allow`/`deny` came from, as explanations name it (default: the --allow/--deny
    flags)"""
    trust_project: bool = False
    headless_policy: HeadlessPolicy | None = None
    permission_timeout: float | None = None
    ui: UiBridge | None = None
    extension_ui: UiBridge | None = None  # `api.ui` for extensions, when it differs from `ui`
    has_responder: Callable[[], bool] | None = None
    extensions: Sequence[tuple[str, Extension]] = ()
    config: ShardConfig | None = None
    env: Mapping[str, str] | None = None
    events: EventStream | None = None
    diagnostics: list[str] = field(default_factory=list[str])
    sandbox_network: bool | None = None  # this agent's override of config `sandbox.network`
    max_tokens: int = 8192
    temperature: float | None = None
    agent_definition: str | AgentDefinition | None = None
    """a definition name (looked up in `agents/*.md`, see engine/agent_definitions.py) or one
    already loaded: its model and mode are defaults, its tools an allowlist, its skills the
    only (preloaded) ones, its permissions added rules, its body part of the system prompt"""
    skills: Sequence[str] | None = None  # only these skills (None: every discovered one)
    files: HostFiles | None = None
    """the editor's view of text files (an ACP host's): read, edit and write go through it"""
    parent_agent_id: str | None = None  # the agent that launched this one (a subagent)
    goal: str | None = None  # the session's goal when its branch never had one (GOALS.md)


class Agent:
    """An assembled agent: the session plus what it was built from."""

    def __init__(
        self,
        session: AgentSession,
        host: ExtensionHost,
        gate: RuleGate,
        definitions: AgentDefinitions | None = None,
        definition: AgentDefinition | None = None,
    ) -> None:
        self.session = session
        self.host = host
        self.gate = gate
        self.definitions = definitions or AgentDefinitions()
        """every agent definition this agent's cwd and trust can see (for launching others)"""
        self.definition = definition
        """the definition this agent was built from, if any"""
        self.checkpoints: CheckpointsCapability | None = None
        """files kept before tools change them; rewind, review and revert"""

    @property
    def events(self) -> EventStream:
        return self.session.events

    @property
    def agent_id(self) -> str:
        return self.session.agent_id

    def prompt(self, text: str) -> AsyncIterator[Event]:
        return self.session.prompt(text)

    async def run(self, text: str, images: Sequence[ImageBlock] = ()) -> TurnEndEvent:
        return await self.session.run(text, images)

    def steer(
        self,
        text: str,
        images: Sequence[ImageBlock] = (),
        *,
        steer_id: str | None = None,
        replace: bool = False,
        queue: bool = False,
    ) -> str:
        """Returns the steer's id; its `steer_receipt` event says what became of it."""
        return self.session.steer(
            text, steer_id=steer_id, replace=replace, queue=queue, images=images
        )

    def inject(self, text: str, kind: ContextKind = "note", label: str | None = None) -> str | None:
        """Context for the next request, no turn; the entry id when logged at once (idle)."""
        return self.session.inject(text, kind, label)

    def set_title(self, title: str) -> str:
        return self.session.set_title(title)

    @property
    def title(self) -> str | None:
        return self.session.title

    def abort(self) -> bool:
        return self.session.abort()

    def set_mode(self, name: str) -> None:
        self.session.set_mode(name)
        self.gate.mode = self.session.modes[name]

    def fork(self, entry_id: str | None = None) -> str:
        """A new session in the same folder whose lineage starts at `entry_id` (default: now)."""
        store = self.session.store
        point = entry_id or store.leaf_id
        if point is None or store.get(point) is None:
            raise ConfigError(f"no entry {entry_id!r} in session {store.session_id}")
        child = SessionStore.create(
            store.path.parent,
            self.session.config.cwd,
            agent_id=self.agent_id,
            parent=(store.session_id, point),
        )
        child.close()
        return child.session_id

    async def command(
        self, text: str, *, client_id: str | None = None, label: str | None = None
    ) -> CommandOutputEvent:
        """Run the slash command `text` (`/status`, `/help`, an extension's): its output, or
        why it failed, is a `command_output` event every client of this agent shows."""
        try:
            markdown, ok = await run_command(self.host, text), True
        except ConfigError as exc:
            markdown, ok = str(exc), False
        if isinstance(markdown, PromptTurn):
            markdown = prompt_commands.send_turn(self.session, markdown)
        try:
            name = split_command(text)[0]
        except ConfigError:
            name = text.split(maxsplit=1)[0] if text.strip() else "/"
        return self.events.emit(CommandOutputEvent, command=name, text=text, ok=ok,
                                markdown=markdown, client_id=client_id, label=label)  # fmt: skip

    def list_sessions(self) -> list[dict[str, object]]:
        folder = self.session.store.path.parent
        return [
            {"session_id": p.stem, "path": str(p), "bytes": p.stat().st_size}
            for p in sorted(folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime)
        ]

    async def close(self) -> None:
        if self.session.running:
            self.session.abort()
        try:
            await self.session.stop_follow_ups()  # before the language server they may wait on
        finally:
            try:  # the disposers end background tasks and terminals, whatever came before
                await lifecycle.session_ended(self.session)
                await self.host.shutdown()
            finally:
                self.session.store.close()


def _bundled(
    config: ShardConfig,
    lineage: Callable[[], list[Path]],
    tasks: BackgroundTasks,
) -> list[tuple[str, Extension]]:
    def tools(api: ExtensionApi) -> None:
        sandbox = sandbox_policy(config.sandbox, credential_files(config))
        passthrough = config.tools.env_passthrough
        for tool in builtin_tools(env_passthrough=passthrough, sandbox=sandbox, tasks=tasks):
            api.register_tool(tool)

    def modes(api: ExtensionApi) -> None:
        for mode in bundled_modes():
            api.register_mode(mode)

    def compaction(api: ExtensionApi) -> None:
        api.register_compactor(
            DeterministicCompactor(
                threshold=config.compaction.threshold,
                keep_recent_tokens=config.compaction.keep_recent_tokens,
            )
        )

    def recall(api: ExtensionApi) -> None:
        api.register_tool(RecallTool(lambda _session_id: lineage()))

    return [
        ("shard.tools", tools),
        ("shard.modes", modes),
        ("shard.providers", _register_bundled_providers),
        ("shard.compaction", compaction),
        ("shard.recall", recall),
        ("shard.tasks", tasks_extension(tasks)),
    ]


def _register_bundled_providers(api: ExtensionApi) -> None:
    for spec in BUNDLED:
        api.register_provider(spec)


async def registered_providers(home: Path | None = None) -> list[ProviderSpec]:
    """The providers an agent of `home` has (`extension_host.registered_specs`)."""
    return await registered_specs(BUNDLED, (home or shard_home()).expanduser())


async def _install(
    host: ExtensionHost,
    opts: AgentOptions,
    config: ShardConfig,
    store: SessionStore,
    tasks: BackgroundTasks,
) -> prompt_commands.PromptCommands:
    env = opts.env if opts.env is not None else os.environ
    home = (opts.home or shard_home()).expanduser()
    cwd = Path(opts.cwd).expanduser().resolve()

    def lineage() -> list[Path]:
        return [s.path for s in reversed(store.ancestors)] + [store.path]

    # First, so any extension (the caller's too) can replace the code intelligence.
    await host.install("shard.code_index", CodeIndexCapability(cwd, home=home))
    # Before them too: a caller's search provider or fetcher replaces the bundled one.
    await host.install("shard.web", _web(config, env, host))
    for name, extension in [*_bundled(config, lineage, tasks), *opts.extensions]:
        await host.install(name, extension)
    policy = sandbox_policy(config.sandbox, credential_files(config))
    await host.install("shard.terminals", TerminalsCapability(Sandbox(policy), env))
    # The subagent tools, when a gateway started this agent (they talk to it over HTTP).
    await host.install("shard.subagents", SubagentsCapability(env))
    await host.install_entry_points()
    await host.install_folder(home / "extensions", trusted=True)
    await host.install_folder(cwd / ".shard" / "extensions", trusted=opts.trust_project)
    prompts = await prompt_commands.install_prompt_commands(
        host, cwd, home, opts.trust_project, (config, env)
    )
    opts.diagnostics.extend(prompts.diagnostics)
    # Last, so the skill loaders every other extension registered are consulted.
    user_home = Path(env.get("HOME") or Path.home())
    roots = default_roots(cwd, shard_home=home, user_home=user_home)
    definition = _chosen(opts)
    chosen = definition.skills if definition else None
    skills = SkillsCapability(
        roots,
        trusted=opts.trust_project,
        sources=host.load_skills,
        only=opts.skills if opts.skills is not None else chosen,
        preload=chosen or (),
    )
    await host.install("shard.skills", skills)
    opts.diagnostics.extend(str(d) for d in skills.registry.diagnostics if d.level != "info")
    hooks = HooksCapability(cwd, trusted=opts.trust_project, sandbox=Sandbox(policy))
    await host.install("shard.hooks", hooks)
    opts.diagnostics.extend(hooks.diagnostics)
    return prompts


def _web(config: ShardConfig, env: Mapping[str, str], host: ExtensionHost) -> WebCapability:
    """web_fetch / web_search; a search key comes from `web.search.credential`, else the
    service's usual variable."""

    def key(credential: str | None, variable: str) -> str:
        if credential:
            return resolve_credential(config, credential, env)
        value = env.get(variable, "").strip()
        if not value:
            raise ConfigError(f"set {variable} or name a credential in web.search.credential")
        return value

    return WebCapability(config.web, key=key, lookup=host)


def _open_store(opts: AgentOptions, home: Path, cwd: Path, agent_id: str) -> SessionStore:
    """Resume or create the session; an agent's current session id is kept beside its logs."""
    agent_dir = home / "agents" / agent_id
    folder = agent_dir / "sessions" if opts.agent_id else home / "sessions"
    pointer = agent_dir / "current-session"
    resume = opts.resume
    if resume is True and opts.agent_id and pointer.exists():
        resume = pointer.read_text(encoding="utf-8").strip()
    if isinstance(resume, Path) or (isinstance(resume, str) and resume.endswith(".jsonl")):
        store = SessionStore.open(Path(resume))
    elif isinstance(resume, str):
        store = SessionStore.open(find_session(home, resume))
    else:
        store = SessionStore.create(folder, cwd, agent_id=agent_id)
    if opts.agent_id:
        write_private(pointer, store.session_id.encode("utf-8"))
    load_lineage(store, home)
    return store


def _model(
    opts: AgentOptions, config: ShardConfig, env: Mapping[str, str], host: ExtensionHost
) -> tuple[str, bool]:
    """The model asked for, else the default among every registered provider (an
    extension's too, by its priority)."""
    if opts.model:
        return opts.model, opts.model == "scripted/demo"
    return resolve_default_model(config, env, host.provider_specs())


async def create_agent(
    cwd: Path | str = ".", model: str | None = None, mode: str | None = None, **kwargs: Any
) -> Agent:
    """Assemble an agent. Keyword arguments are `AgentOptions` fields."""
    opts = AgentOptions(cwd=cwd, model=model, mode=mode, **kwargs)
    initial_goal = goal_text([opts.goal]) if opts.goal is not None else None  # cap: before all
    root = Path(opts.cwd).expanduser().resolve()
    if not root.is_dir():
        raise ConfigError(f"cwd {opts.cwd} is not a directory")
    home = (opts.home or shard_home()).expanduser()
    definitions = _resolve_definition(opts, root, home)
    config = opts.config or load_config()
    if opts.sandbox_network is not None:
        sandbox = config.sandbox.model_copy(update={"network": opts.sandbox_network})
        config = config.model_copy(update={"sandbox": sandbox})
    env = opts.env if opts.env is not None else os.environ
    agent_id = opts.agent_id or f"agent-{uuid.uuid4().hex[:12]}"

    store = _open_store(opts, home, root, agent_id)
    host = ExtensionHost()
    host.use_settings(extension_settings(config))
    host.bind_ui(opts.extension_ui or opts.ui)
    # Background task logs live beside the session log; a finished task steers the session.
    tasks = BackgroundTasks(store.path.with_suffix(".tasks"))
    commands = BuiltinCommands()  # first: any extension may replace a bundled command
    try:
        await host.install("shard.commands", commands)
        prompts = await _install(host, opts, config, store, tasks)
        checkpoints = CheckpointsCapability(
            root,
            home=home,
            store=lambda: store,
            tasks_running=lambda: any(t.running for t in tasks.all()),
        )
        await host.install("shard.checkpoints", checkpoints)
        goals = GoalsCapability(store=lambda: store)
        await host.install("shard.goals", goals)
        todos = TodosCapability(store=lambda: store)
        await host.install("shard.todos", todos)
        await host.install("shard.questions", QuestionsCapability())
        # MCP last: the transports extensions registered are known, and its grants are this agent's.
        await install_mcp(host, config, cwd=root, home=home, env=env, trusted=opts.trust_project,
                          agent_id=agent_id, diagnostics=opts.diagnostics,
                          rules=_rule_set(opts, config, root))  # fmt: skip
        model_spec, demo = _model(opts, config, env, host)
        agent = _assemble(opts, host, store, config, (root, model_spec, demo, agent_id))
        agent.definitions = definitions
        checkpoints.bind(events=agent.events, running=lambda: agent.session.running)
        goals.bind(agent.session, initial=initial_goal)
        todos.bind(agent.session)
        agent.checkpoints = checkpoints
        commands.bind(agent)
        prompts.bind(agent.session)
        # queue: a task that finishes while the agent is idle reaches its next turn
        tasks.notify = lambda text: agent.session.steer(text, queue=True)
        await lifecycle.session_started(agent.session, len(store.branch()) > 1)
        return agent
    except BaseException:
        store.close()
        raise


def _rule_set(opts: AgentOptions, config: ShardConfig, root: Path) -> RuleSet:
    """The rules the gate will hold (MCP names them when it disables a changed tool)."""
    definition = _chosen(opts)
    return load_rules(
        root,
        config.permissions,
        trust_project=opts.trust_project,
        allow=tuple(opts.allow),
        deny=tuple(opts.deny),
        added=definition.rules() if definition else None,
        given_by=opts.rules_from,
    )


def _assemble(
    opts: AgentOptions,
    host: ExtensionHost,
    store: SessionStore,
    config: ShardConfig,
    facts: tuple[Path, str, bool, str],
) -> Agent:
    root, model_spec, demo, agent_id = facts
    snap = host.snapshot
    definition = _chosen(opts)
    tools = snap.tools
    if definition is not None and definition.tools is not None:
        tools = AllowedTools(snap.tools, definition.tools)
        if tools.missing():
            opts.diagnostics.append(
                f"agent definition {definition.name}: no tool named {', '.join(tools.missing())}"
            )
    env = opts.env if opts.env is not None else os.environ
    specs = host.provider_specs()
    provider = create_provider(model_spec, config, env, specs)
    spec = find_spec(model_spec.strip().partition("/")[0], specs)
    # the spec's price for the model: a provider that does not price its replies gets it too
    model_price = price(spec.families, provider.model, config.prices) if spec else None
    events = opts.events or EventStream(agent_id)
    host.attach(events)  # `on` handlers see every event of this agent

    async def record(details: PermissionDetails) -> None:
        store.append(PermissionEntry, details)
        store.sync()

    overrides: dict[str, object] = {}
    if opts.headless_policy:
        overrides["headless_policy"] = opts.headless_policy
    if opts.permission_timeout:
        overrides["timeout"] = opts.permission_timeout
    gate = RuleGate.from_config(
        config.permissions.model_copy(update=overrides),
        agent_id=agent_id,
        cwd=root,
        record=record,
        trust_project=opts.trust_project,
        allow=tuple(opts.allow),
        deny=tuple(opts.deny),
        given_by=opts.rules_from,
        added=definition.rules() if definition else None,
        events=events,
        ui=host.ui if opts.ui else None,
        tools=tools.get,
        has_responder=opts.has_responder,
    )

    context = load_context_files(root, config_dir(), trusted=opts.trust_project)
    sources = [entry[1] for entry in snap.handlers if entry[0] == PROMPT_SECTIONS_EVENT]
    opts.diagnostics.extend(context.diagnostics)
    opts.diagnostics.extend(gate.rules.diagnostics)
    opts.diagnostics.extend(
        f"{d.extension}: {d.message}" for d in host.diagnostics if d.level != "info"
    )
    session = AgentSession(
        SessionConfig(
            agent_id=agent_id,
            cwd=root,
            roots=[root],
            mode=opts.mode or "build",
            demo=demo,
            secrets=known_secrets(config, env),
            code_index=host.code_index(),
            files=opts.files,
            max_tokens=opts.max_tokens,
            temperature=opts.temperature,
            usage_log=(opts.home or shard_home()).expanduser() / USAGE_FILE,
            model_titles=config.titles.model,
            price=model_price,
            max_stop_continuations=config.max_stop_continuations,
            parent_agent_id=opts.parent_agent_id,
        ),
        store=store,
        provider=provider,
        tools=tools,
        modes=snap.modes,
        gate=gate,
        stable_sections=[
            identity_section(root),
            *_definition_sections(definition),
            *context.sections,
        ],
        compactor=host.compactor(),  # with the registered extractors and code intelligence
        events=events,
        section_sources=sources,  # asked per request: a section may follow the branch
        hook_points=HookPoints(snap.handlers),  # `before_tool` / `after_tool` handlers
    )
    gate.mode = snap.modes[session.mode]
    gate.before_ask = lambda prompt: lifecycle.ask_hooks(session, prompt)  # PermissionRequest
    session.diagnostics = opts.diagnostics  # the same list: the status events show every line
    return Agent(session, host, gate, definition=definition)


def _resolve_definition(opts: AgentOptions, root: Path, home: Path) -> AgentDefinitions:
    """Load the definitions this run can see; resolve `opts.agent_definition` by name and let
    its model and mode fill what the caller left unset."""
    definitions = load_agent_definitions(
        root, home=home, config=config_dir(), trusted=opts.trust_project
    )
    opts.diagnostics.extend(definitions.diagnostics)
    if isinstance(opts.agent_definition, str):
        opts.agent_definition = definitions.require(opts.agent_definition)
    if opts.agent_definition is not None:
        opts.model = opts.model or opts.agent_definition.model
        opts.mode = opts.mode or opts.agent_definition.mode
    opts.mode = opts.mode or "build"
    return definitions


def _chosen(opts: AgentOptions) -> AgentDefinition | None:
    definition = opts.agent_definition
    return definition if isinstance(definition, AgentDefinition) else None


def _definition_sections(definition: AgentDefinition | None) -> list[SystemSection]:
    if definition is None or not definition.prompt_text():
        return []
    name, text = f"agent:{definition.name}", definition.prompt_text()
    return [SystemSection(name=name, text=text, stable=True)]


def run(prompt: str, **kwargs: Any) -> list[Event]:
    """Blocking helper: one turn, returns its events."""

    async def main() -> list[Event]:
        agent = await create_agent(**kwargs)
        try:
            return [event async for event in agent.prompt(prompt)]
        finally:
            await agent.close()

    return asyncio.run(main())
