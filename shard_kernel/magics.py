"""`%shard` and `%%shard`: an agent inside an ordinary Python notebook.

%load_ext shard_kernel
%shard new --cwd . --model scripted/demo
%%shard
fix the failing test
"""

from __future__ import annotations

import argparse
import shlex
from typing import Any

from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.display import display

from shard_core.types.errors import ShardError
from shard_kernel.inprocess import InProcessAgent

USAGE = """usage:
  %shard new [--name N] [--cwd DIR] [--model MODEL] [--mode plan|build] [--allow RULE] [--deny RULE]
  %shard list                      agents in this notebook
  %shard use NAME                  make NAME the default agent
  %shard mode plan|build           switch the default agent's mode
  %shard status                    the default agent's status
  %%shard [--agent NAME] [--wait]  send the cell as a prompt (returns at once unless --wait)"""


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
    parser.add_argument("--mode", default="build")
    parser.add_argument("--allow", action="append", default=[])
    parser.add_argument("--deny", action="append", default=[])
    return parser


def _cell_parser() -> _Parser:
    parser = _Parser(prog="%%shard", add_help=False)
    parser.add_argument("--agent")
    parser.add_argument("--wait", action="store_true")
    return parser


@magics_class
class ShardMagics(Magics):
    def __init__(self, shell: Any) -> None:
        super().__init__(shell)
        self.agents: dict[str, InProcessAgent] = {}
        self.current: str | None = None

    @line_cell_magic
    def shard(self, line: str, cell: str | None = None) -> Any:
        try:
            if cell is not None:
                return self._prompt(line, cell)
            return self._command(line)
        except (UsageError, ShardError) as exc:
            print(f"%shard: error: {exc}\n\n{USAGE}")
            return None

    # ------------------------------------------------------------ line commands

    def _command(self, line: str) -> Any:
        words = shlex.split(line)
        if not words:
            raise UsageError("missing a command")
        name, args = words[0], words[1:]
        handlers = {
            "new": self._new,
            "list": self._list,
            "use": self._use,
            "mode": self._mode,
            "status": self._status,
        }
        if name not in handlers:
            raise UsageError(f"unknown command {name!r}")
        return handlers[name](args)

    def _new(self, args: list[str]) -> None:
        opts = _new_parser().parse_args(args)
        name = opts.name or f"agent{len(self.agents) + 1}"
        if name in self.agents:
            raise UsageError(f"an agent named {name!r} exists already")
        agent = InProcessAgent(
            name,
            cwd=opts.cwd,
            model=opts.model,
            mode=opts.mode,
            allow=opts.allow,
            deny=opts.deny,
        )
        self.agents[name] = agent
        self.current = name
        session = agent.agent.session
        demo = " (scripted demo: no model is called)" if session.config.demo else ""
        print(f"agent {name}: {session.provider.model}{demo}, {session.mode} mode, in {opts.cwd}")

    def _list(self, args: list[str]) -> None:
        if not self.agents:
            print("no agents yet: %shard new")
        for name, host in self.agents.items():
            s = host.agent.session
            mark = "*" if name == self.current else " "
            print(f"{mark} {name}  {s.status:<22} {s.mode:<6} {s.provider.model}")

    def _use(self, args: list[str]) -> None:
        if len(args) != 1:
            raise UsageError("use takes one agent name")
        self._agent(args[0])
        self.current = args[0]

    def _mode(self, args: list[str]) -> None:
        if len(args) != 1:
            raise UsageError("mode takes plan or build")
        host = self._agent(None)
        host.set_mode(args[0])
        print(f"{host.name}: {host.agent.session.mode} mode")

    def _status(self, args: list[str]) -> None:
        host = self._agent(args[0] if args else None)
        s = host.agent.session
        print(
            f"{host.name}: {s.status}, {s.mode} mode, {s.provider.model}, "
            f"context {s.meter.context_tokens}/{s.meter.context_window}, "
            f"{s.meter.total.input_tokens} in / {s.meter.total.output_tokens} out tokens"
        )

    def _agent(self, name: str | None) -> InProcessAgent:
        key = name or self.current
        if key is None:
            raise UsageError("no agent yet: create one with %shard new")
        if key not in self.agents:
            raise UsageError(f"no agent named {key!r}; %shard list shows them")
        return self.agents[key]

    # ------------------------------------------------------------ the cell

    def _prompt(self, line: str, cell: str) -> Any:
        opts = _cell_parser().parse_args(shlex.split(line))
        if not cell.strip():
            raise UsageError("the cell is empty: write the prompt in it")
        if not self.agents and opts.agent is None:
            self._new([])
        host = self._agent(opts.agent)
        widget = host.widget()
        display(widget)
        future = host.prompt(cell.strip())
        if opts.wait:
            end = future.result()
            if end.reason != "completed":
                print(f"%shard: the turn ended: {end.reason} {end.error or ''}".rstrip())
        return None

    def close(self) -> None:
        for host in self.agents.values():
            host.close()
        self.agents.clear()
