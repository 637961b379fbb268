"""`%shard` and `%%shard`: an agent inside an ordinary Python notebook.

%load_ext shard_kernel
%shard new --cwd . --model scripted/demo
%%shard
fix the failing test

`%shard new` makes a gateway agent (its own kernel, in the registry every Shard view lists) when
a Shard gateway is found — inside `jupyter lab` with Shard installed, the notebook's own server —
and an in-process agent otherwise or with `--local`. `--agent NAME` (or `%shard attach NAME`
first) drives an existing gateway agent: see shard_kernel/remote/.
"""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import Any

from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.display import display

from shard_core.engine.plurals import counted
from shard_core.protocol.events import TurnEndEvent
from shard_core.types.errors import ConfigError, ShardError
from shard_kernel import cell_agent  # noqa: F401  (the Lab's cell actions look for it)
from shard_kernel.inprocess import InProcessAgent
from shard_kernel.magic_context import (
    InjectError,
    add_inject_options,
    context_from_args,
    inject,
    inject_parser,
    set_title,
)
from shard_kernel.notebook_tools import notebook_extension
from shard_kernel.notebook_tools.handover import handed_setup
from shard_kernel.notebook_tools.handover import notice as notebook_notice
from shard_kernel.remote import GatewayError, NoGatewayError, RemoteAgent, RemoteHub
from shard_kernel.remote.workflow_view import WorkflowView
from shard_kernel.var_summary import VarMentionError, var_contexts

USAGE = """usage:
  %shard new [--name N] [--cwd DIR] [--model MODEL] [--mode plan|build] [--allow RULE] [--deny RULE]
             [--agent DEFINITION] [--skill NAME] [--local] [--notebook this|PATH] [--goal TEXT]
                                   a gateway agent, attached live (the default agent); in this
                                   kernel with --local, or when no gateway is found; --agent
                                   builds it from agents/DEFINITION.md, --skill limits its skills;
                                   --notebook this hands it this notebook and runs its code in
                                   this kernel; --goal sets the session's goal
  %shard connect [URL] [--token T] use the Shard gateway at URL (no URL: find a running one)
  %shard attach NAME|ID            show a gateway agent live; it becomes the default agent
  %shard dashboard                 every gateway agent, refreshed live, with Attach and Kill
  %shard list                      agents in this notebook (gateway agents marked remote)
  %shard use NAME                  make NAME the default agent
  %shard mode plan|build           switch the default agent's mode
  %shard status [NAME]             the default agent's status
  %shard inject TEXT | --file PATH | --last [--kind note|file|output] [--label L]
                                   context the agent's next request carries; no turn starts
  %shard title TEXT                name the default agent's session
  %shard workflow FILE [--input K=V] [--model M] [--allow RULE] [--max-agents N] [--deadline S]
                                   run a workflow file in the gateway (a durable job), shown live:
                                   its steps, its questions (answer them there); started by the
                                   default gateway agent when there is one (its rules bound it)
  %%shard [--agent NAME] [--wait] [--timeout S]
                                   send the cell as a prompt; it returns at once and you answer
                                   asks in the widget, or with --wait it blocks until the turn
                                   ends and the agent's headless policy answers asks;
                                   with --inject [--kind K] [--label L] the cell is context
The gateway: %shard connect, else $SHARD_GATEWAY_URL (+ $SHARD_GATEWAY_TOKEN), else a running
`shard gateway` or `jupyter lab` with Shard installed, found through Jupyter's runtime files."""
WAIT_TIMEOUT = 1800.0
Host = InProcessAgent | RemoteAgent


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse would print and exit the kernel
        raise UsageError(message)


def _new_parser() -> _Parser:
    parser = _Parser(prog="%shard new", add_help=False)
    parser.add_argument("--name")
    parser.add_argument("--cwd", default=".")
    parser.add_argument("--model")
    parser.add_argument("--mode", default=None)
    parser.add_argument("--allow", action="append", default=[])
    parser.add_argument("--deny", action="append", default=[])
    parser.add_argument("--agent", default=None)
    parser.add_argument("--skill", action="append", default=None)
    parser.add_argument("--local", action="store_true")
    parser.add_argument("--notebook", metavar="this|PATH")
    parser.add_argument("--goal", metavar="TEXT")
    return parser


def _cell_parser() -> _Parser:
    parser = _Parser(prog="%%shard", add_help=False)
    parser.add_argument("--agent")
    parser.add_argument("--wait", action="store_true")
    parser.add_argument("--timeout", type=_seconds, default=WAIT_TIMEOUT)
    parser.add_argument("--inject", action="store_true")
    add_inject_options(parser)
    return parser


def _connect_parser() -> _Parser:
    parser = _Parser(prog="%shard connect", add_help=False)
    parser.add_argument("url", nargs="?")
    parser.add_argument("--token")
    return parser


def _workflow_parser() -> _Parser:
    parser = _Parser(prog="%shard workflow", add_help=False)
    parser.add_argument("file")
    parser.add_argument("--input", action="append", default=[], metavar="K=V")
    parser.add_argument("--model")
    parser.add_argument("--allow", action="append", default=[])
    parser.add_argument("--max-agents", type=int)
    parser.add_argument("--deadline", type=float)
    return parser


def _wants_help(line: str) -> bool:
    """`%shard --help`, `%shard help`, `%shard new -h`: the usage, and nothing said is wrong."""
    words = line.split()
    asks = ("help", "--help", "-h")
    if words[:1] and words[0] in asks:
        return True
    # free text (inject, title) may contain "-h"; anywhere else the option right after the name
    return len(words) > 1 and words[1] in asks[1:] and words[0] not in ("inject", "title")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0:
        raise argparse.ArgumentTypeError("the timeout must be more than 0 seconds")
    return value


@magics_class
class ShardMagics(Magics):
    def __init__(self, shell: Any) -> None:
        super().__init__(shell)
        self.agents: dict[str, Host] = {}
        self.current: str | None = None
        self._in_this_kernel: set[str] = set()  # agents whose workspace kernel is this one
        self.remote = RemoteHub(on_attach=self._register)
        self.workflows: list[WorkflowView] = []

    @line_cell_magic
    def shard(self, line: str, cell: str | None = None) -> Any:
        if _wants_help(line):
            print(USAGE)
            return None
        try:
            if cell is not None:
                return self._prompt(line, cell)
            return self._command(line)
        except (UsageError, ConfigError, InjectError) as exc:
            print(f"%shard: error: {exc}\n\n{USAGE}")
        except ShardError as exc:  # the gateway, the network, the agent: no usage, just why
            print(f"%shard: error: {exc}")
        return None

    # ------------------------------------------------------------ line commands

    def _command(self, line: str) -> Any:
        try:
            words = shlex.split(line)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if not words:
            raise UsageError("missing a command")
        name, args = words[0], words[1:]
        handlers = {
            "new": self._new,
            "connect": self._connect,
            "attach": self._attach,
            "dashboard": self._dashboard,
            "list": self._list,
            "use": self._use,
            "mode": self._mode,
            "status": self._status,
            "inject": self._inject,
            "title": lambda args: print(set_title(self._agent(None), args)),
            "workflow": self._workflow,
        }
        if name not in handlers:
            raise UsageError(f"unknown command {name!r}")
        return handlers[name](args)

    def _new(self, args: list[str]) -> None:
        opts = _new_parser().parse_args(args)
        # An agent handed a notebook runs in this kernel: "this" means this kernel too.
        local = opts.local or opts.notebook is not None
        if not local and self._gateway_found(opts.name or self._local_name()):
            self._new_remote(opts)
        else:
            self._new_local(opts)

    def _gateway_found(self, name: str) -> bool:
        """Whether a gateway is there to make the agent; a named one that fails is an error."""
        try:
            self.remote.gateway()
        except NoGatewayError:
            print(
                f"%shard: no Shard gateway found, so {name} runs in this kernel "
                "(%shard connect URL --token T to use one; --local skips the search)"
            )
            return False
        return True

    def _new_remote(self, opts: argparse.Namespace) -> None:
        command: dict[str, Any] = {
            "cwd": str(Path(opts.cwd).expanduser().resolve()),
            "permissions": {"allow": opts.allow, "deny": opts.deny},
        }
        chosen = {"model": opts.model, "mode": opts.mode, "agent": opts.agent, "goal": opts.goal}
        for key, value in chosen.items():
            if value:
                command[key] = value
        if opts.skill:
            command["skills"] = opts.skill
        if opts.name:
            command["name"] = opts.name
        agent = self.remote.create(command)
        state = agent.state
        demo = " (scripted demo: no model is called)" if state.get("demo") else ""
        print(
            f"agent {agent.name}: {state.get('model')}{demo}, {state.get('mode')} mode, "
            f"in {agent.info.cwd} (gateway agent {agent.info.id} on {agent.link.url})"
        )
        display(agent.widget(history=True))

    def _local_name(self) -> str:
        return f"agent{len(self.agents) + 1}"

    def _new_local(self, opts: argparse.Namespace) -> None:
        name = opts.name or self._local_name()
        if name in self.agents:
            raise UsageError(f"an agent named {name!r} exists already")
        handed = None
        if opts.notebook is not None:
            user_ns = self.shell.user_ns if self.shell else {}
            handed = handed_setup(opts.notebook, user_ns, Path(opts.cwd).expanduser().resolve())
        agent = InProcessAgent(
            name,
            cwd=opts.cwd,
            model=opts.model,
            mode=opts.mode,
            allow=opts.allow,
            deny=opts.deny,
            agent_definition=opts.agent,
            skills=opts.skill,
            goal=opts.goal,
            **({"extensions": [notebook_extension(handed)]} if handed else {}),
        )
        if handed is not None and handed.connection_file is not None:
            self._in_this_kernel.add(name)
        self.agents[name] = agent
        self.current = name
        session = agent.agent.session
        demo = " (scripted demo: no model is called)" if session.config.demo else ""
        print(f"agent {name}: {session.provider.model}{demo}, {session.mode} mode, in {opts.cwd}")
        for line in session.diagnostics:  # e.g. project files left out without trust
            print(f"  note: {line}")
        if handed is not None:
            print(notebook_notice(name, handed))

    def _connect(self, args: list[str]) -> None:
        opts = _connect_parser().parse_args(args)
        link, agents = self.remote.connect(opts.url, opts.token)
        found = " (found running)" if link.source == "discovered" else ""
        print(
            f"connected to the Shard gateway at {link.url}{found}: {counted(len(agents), 'agent')}"
        )

    def _attach(self, args: list[str]) -> None:
        if len(args) != 1:
            raise UsageError("attach takes one agent name or id")
        agent = self.remote.attach(args[0])
        print(f"attached to {agent.name} ({agent.info.id}) on {agent.link.url}: the default agent")
        display(agent.widget(history=True))

    def _dashboard(self, args: list[str]) -> None:
        if args:
            raise UsageError("dashboard takes no arguments")
        display(self.remote.dashboard().view)

    def _list(self, args: list[str]) -> None:
        if not self.agents:
            print("no agents yet: %shard new, or %shard attach NAME for a gateway agent")
        for name, host in self.agents.items():
            mark = "*" if name == self.current else " "
            if isinstance(host, RemoteAgent):
                state = host.state if host.connected else {**host.state, "status": "detached"}
                where = f"(remote {host.info.id} on {host.link.url})"
                print(f"{mark} {name}  {state['status']:<22} {state['mode']:<6} {state['model']}")
                print(f"    {where}")
                continue
            s = host.agent.session
            print(f"{mark} {name}  {s.status:<22} {s.mode:<6} {s.provider.model}")

    def _workflow(self, args: list[str]) -> None:
        opts = _workflow_parser().parse_args(args)
        inputs = dict(pair.partition("=")[::2] for pair in opts.input)
        if any("=" not in pair or not pair.split("=")[0].strip() for pair in opts.input):
            raise UsageError("--input takes KEY=VALUE")
        body: dict[str, Any] = {"file": str(Path(opts.file).expanduser().resolve()),
                                "cwd": str(Path.cwd()), "inputs": inputs}  # fmt: skip
        starter = self.agents.get(self.current) if self.current else None
        if isinstance(starter, RemoteAgent):
            if opts.allow:
                raise UsageError(f"the run has {starter.name}'s rules: no --allow")
            body["agent"] = starter.info.id
        else:
            body["permissions"] = {"allow": opts.allow}
        for key in ("model", "max_agents", "deadline"):
            if getattr(opts, key) is not None:
                body[key] = getattr(opts, key)
        link = self.remote.gateway()
        record = self.remote.call(link.request("POST", "shard/api/workflows", body=body))
        by = f", started by {starter.name}" if isinstance(starter, RemoteAgent) else ""
        print(f"workflow {record['id']}: running in the gateway at {link.url}{by}")
        view = WorkflowView(self.remote.loop, link, record)
        self.workflows.append(view)
        display(view.view)

    def _use(self, args: list[str]) -> None:
        if len(args) != 1:
            raise UsageError("use takes one agent name")
        self._agent(args[0])
        self.current = args[0]

    def _mode(self, args: list[str]) -> None:
        if len(args) != 1:
            raise UsageError("mode takes plan or build")
        host = self._agent(None)
        if isinstance(host, RemoteAgent):
            reply = host.set_mode(args[0])
            if not reply.ok:
                raise GatewayError(f"{host.name}: {reply.message}")
            print(f"{host.name}: {args[0]} mode")
            return
        host.set_mode(args[0])
        print(f"{host.name}: {host.agent.session.mode} mode")

    def _status(self, args: list[str]) -> None:
        host = self._agent(args[0] if args else None)
        if isinstance(host, RemoteAgent):
            print(self.remote.status(host))
            return
        s = host.agent.session
        print(
            f"{host.name}: {s.status}, {s.mode} mode, {s.provider.model}, "
            f"context {s.meter.context_tokens}/{s.meter.context_window}, "
            f"{s.meter.total.input_tokens} in / {s.meter.total.output_tokens} out tokens"
        )

    def _inject(self, args: list[str]) -> None:
        opts = inject_parser(_Parser).parse_args(args)
        text, kind, label = context_from_args(opts, self.shell.user_ns if self.shell else {})
        print(inject(self._agent(None), text, kind, label))

    def _agent(self, name: str | None) -> Host:
        key = name or self.current
        if key is None:
            raise UsageError("no agent yet: create one with %shard new (or %shard attach NAME)")
        if key not in self.agents:
            raise UsageError(f"no agent named {key!r}; %shard list shows them")
        return self.agents[key]

    def _register(self, agent: RemoteAgent) -> None:
        """An attached gateway agent joins the notebook's agents and becomes the default."""
        for name, host in self.agents.items():
            if host is agent:
                self.current = name
                return
        if agent.name in self.agents:  # an in-process agent has that name: use the id
            agent.name = agent.info.id
        self.agents[agent.name] = agent
        self.current = agent.name

    # ------------------------------------------------------------ the cell

    def _prompt(self, line: str, cell: str) -> Any:
        try:
            opts = _cell_parser().parse_args(shlex.split(line))
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if not cell.strip():
            raise UsageError("the cell is empty: write the prompt in it")
        if not self.agents and opts.agent is None:
            self._new([])
        if opts.agent is not None and opts.agent not in self.agents:
            default = self.current
            self.remote.attach(opts.agent)  # a gateway agent: registered under its name
            opts.agent, self.current = self.current, default or self.current
        host = self._agent(opts.agent)
        if opts.inject:
            print(inject(host, cell.strip(), opts.kind or "note", opts.label))
            return None
        self._send_variables(host, cell)
        if opts.wait and (opts.agent or self.current) in self._in_this_kernel:
            raise UsageError(
                "--wait would block the kernel this agent runs its code in; "
                "leave it out and watch the widget"
            )
        display(host.widget())
        future = host.prompt(cell.strip(), blocking=opts.wait)
        if opts.wait:
            try:
                end: TurnEndEvent = future.result(opts.timeout)
            except TimeoutError:
                print(
                    f"%shard: the turn is still running after {opts.timeout:g} s; "
                    "the agent goes on and the widget shows it"
                )
                return None
            if end.reason != "completed":
                print(f"%shard: the turn ended: {end.reason} {end.error or ''}".rstrip())
        return None

    def _send_variables(self, host: Host, cell: str) -> None:
        """Each `@var:` of the cell as context, all summarised before any is sent: a missing one
        is the cell's UsageError and sends nothing."""
        try:
            variables = var_contexts(cell, self.shell.user_ns if self.shell else {})
        except VarMentionError as exc:
            raise UsageError(str(exc)) from None
        for text, label in variables:
            reply = host.inject(text, "variable", label)
            if not reply.ok:
                raise UsageError(f"{label} not sent: {reply.message}")

    def close(self) -> None:
        self.remote.close()
        for host in self.agents.values():
            if isinstance(host, InProcessAgent):
                host.close()
        self.agents.clear()
