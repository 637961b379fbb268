"""PromptCommands: the extension `shard.prompt_commands`. Each file found is one command,
registered through `api.register_command`, so `/help`, completion, the Lab composer, the
widget and ACP list it with no list of their own."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Protocol

from shard_core.capabilities.prompt_commands.expand import SHELL_LINE, expand
from shard_core.capabilities.prompt_commands.files import (
    PromptFile,
    command_roots,
    load_prompt_files,
)
from shard_core.contracts import (
    ExtensionApi,
    PermissionGate,
    PermissionQuery,
    Provider,
    ToolContext,
    ToolRegistry,
)
from shard_core.engine.config import ShardConfig
from shard_core.engine.events import EventStream
from shard_core.engine.extension_host import ExtensionHost
from shard_core.engine.permissions.gate import RuleGate
from shard_core.engine.permissions.sources import RuleSet
from shard_core.engine.session_config import SessionConfig
from shard_core.engine.session_store import SessionStore
from shard_core.engine.slash_commands import PromptTurn, prompt_turn
from shard_core.engine.state import config_dir
from shard_core.protocol.events import Event, TurnEndEvent
from shard_core.providers.models import create_provider
from shard_core.types.errors import ConfigError

TURNS: set[asyncio.Task[object]] = set()
"""turns a prompt command started from a surface that does not wait for them (kept alive)"""


class PromptSession(Protocol):
    """What the prompt commands use of the session they are bound to (AgentSession is one):
    a file's model and allowed tools for one turn, its !`cmd` lines, the turn it sends."""

    provider: Provider

    @property
    def gate(self) -> PermissionGate: ...
    @property
    def events(self) -> EventStream: ...
    @property
    def tools(self) -> ToolRegistry: ...
    @property
    def config(self) -> SessionConfig: ...
    @property
    def store(self) -> SessionStore: ...
    @property
    def agent_id(self) -> str: ...
    @property
    def running(self) -> bool: ...

    def steer(self, text: str) -> str: ...

    async def run(self, text: str) -> TurnEndEvent: ...


class PromptCommands:
    """`host.install("shard.prompt_commands", PromptCommands(roots, ...))`; `diagnostics`
    holds one line per file left out (shown where start notes are shown)."""

    def __init__(
        self,
        roots: list[Path],
        cwd: Path,
        untrusted: list[Path] | None = None,
        models: Callable[[str], Provider] | None = None,
    ) -> None:
        loaded = load_prompt_files(roots)
        self.files = loaded.files
        self.cwd = cwd
        self.models = models
        """builds the provider a file's `model` names (`prefix/model`, as `--model` takes it)"""
        self.diagnostics = loaded.diagnostics
        self.session: PromptSession | None = None
        if untrusted:
            where = ", ".join(str(p) for p in untrusted)
            self.diagnostics.append(
                f"project prompt commands in {where} were not loaded: the project is not trusted"
            )

    def __call__(self, api: ExtensionApi) -> None:
        for file in self.files.values():
            api.register_command(
                file.name, describe(file), self._handler(file), hint=file.argument_hint
            )

    def bind(self, session: PromptSession) -> None:
        self.session = session

    def _handler(self, file: PromptFile) -> Callable[[list[str]], Awaitable[PromptTurn]]:
        async def run(args: list[str]) -> PromptTurn:
            ctx = ToolContext(
                cwd=self.cwd, roots=[self.cwd], agent_id="", session_id="", call_id="prompt"
            )
            text = expand(file.body, args, ctx)
            provider = self._provider(file)
            self._allow_for_one_turn(file)
            if SHELL_LINE.search(text):
                text = await self._run_shell_lines(text, f"/{file.name}")
            self._for_one_turn(provider)
            return prompt_turn(text, f"/{file.name}")

        return run

    def _provider(self, file: PromptFile) -> Provider | None:
        """The provider of the file's `model`, or a ConfigError (nothing is sent) saying why."""
        if not file.model or self.models is None or self.session is None:
            return None
        try:
            return self.models(file.model)
        except ConfigError as exc:
            raise ConfigError(
                f"/{file.name}: model {file.model!r}: {exc}; nothing was sent"
            ) from None

    def _for_one_turn(self, provider: Provider | None) -> None:
        """The session answers with `provider` until the next turn ends, then with its own."""
        session = self.session
        if provider is None or session is None:
            return
        before, session.provider = session.provider, provider

        def restore(event: Event) -> None:
            if isinstance(event, TurnEndEvent):
                session.provider = before
                unsubscribe()

        unsubscribe = session.events.subscribe(restore)

    def _allow_for_one_turn(self, file: PromptFile) -> None:
        """`allowed-tools` join the gate's allow rules, with this file as their source, until
        the next turn ends (a deny rule is judged first, so they never beat one)."""
        gate = self.session.gate if self.session is not None else None
        if not file.allowed_tools or not isinstance(gate, RuleGate) or self.session is None:
            return
        source = f"prompt command /{file.name} ({file.path})"
        before = gate.rules
        gate.rules = before + RuleSet.parse(source, allow=file.allowed_tools)
        events = self.session.events

        def restore(event: Event) -> None:
            if isinstance(event, TurnEndEvent):
                gate.rules = before
                unsubscribe()

        unsubscribe = events.subscribe(restore)

    async def _run_shell_lines(self, text: str, name: str) -> str:
        """Each !`cmd` asked through the gate like a bash call, run by the bash tool, replaced
        by its output; a refusal sends nothing (and runs none of the later lines)."""
        session = self.session
        bash = session.tools.get("bash") if session is not None else None
        if session is None or bash is None:
            raise ConfigError(f"{name}: its !`cmd` lines need the bash tool; nothing was sent")
        outputs: list[str] = []
        for index, match in enumerate(SHELL_LINE.finditer(text)):
            command = match.group(1)
            ctx = ToolContext(
                cwd=session.config.cwd,
                roots=session.config.roots,
                agent_id=session.agent_id,
                session_id=session.store.session_id,
                call_id=f"prompt-command-{index}",
            )
            query = PermissionQuery(tool="bash", input={"command": command}, read_only=False,
                                    cwd=ctx.cwd, call_id=ctx.call_id, turn_id="prompt-command",
                                    agent_id=session.agent_id, context=ctx)  # fmt: skip
            outcome = await session.gate.authorize(query)
            if outcome.decision.kind == "deny":
                raise ConfigError(
                    f"{name}: !`{command}` was not allowed ({outcome.decision.reason}); "
                    "nothing ran after it and nothing was sent"
                )
            result = await bash.execute({"command": command}, ctx)
            outputs.append(session.config.secrets.redact_result(result).text)
        parts = iter(outputs)
        return SHELL_LINE.sub(lambda _m: next(parts), text)


def describe(file: PromptFile) -> str:
    """What the command does (its argument hint is registered apart, as the command's hint)."""
    return file.description or f"the prompt in {file.path.name}"


async def install_prompt_commands(
    host: ExtensionHost,
    cwd: Path,
    home: Path,
    trusted: bool,
    providers: tuple[ShardConfig, Mapping[str, str]] | None = None,
) -> PromptCommands:
    """Install every prompt command this agent can see (`diagnostics`: what was left out);
    `bind` it to the session once assembled. With `providers` (the agent's config and
    environment) a file's `model` is built, by the registered provider specs, for its turn."""
    roots, untrusted = command_roots(cwd, config=config_dir(), home=home, trusted=trusted)
    commands = PromptCommands(roots, cwd, untrusted, _models(host, providers))
    await host.install("shard.prompt_commands", commands)
    return commands


def _models(
    host: ExtensionHost, providers: tuple[ShardConfig, Mapping[str, str]] | None
) -> Callable[[str], Provider] | None:
    if providers is None:
        return None
    config, env = providers
    return lambda spec: create_provider(spec, config, env, host.provider_specs())


def send_turn(session: PromptSession, turn: PromptTurn) -> str:
    """A prompt command's text becomes the user turn (a steer while one runs); the command's
    output says which. Its events reach every client of the agent."""
    if session.running:
        return f"`{turn.command}` sent to the running turn as a steer ({session.steer(turn)})."
    task: asyncio.Task[object] = asyncio.ensure_future(session.run(str(turn)))
    TURNS.add(task)
    task.add_done_callback(TURNS.discard)
    return f"`{turn.command}` sent as the prompt."
