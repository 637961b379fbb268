"""ToolAccess: a tool's permission shape, declared by the tool itself (`Tool.access`).

- `PathAccess`: one argument is a path the call reads (or, with `writes`, changes). The gate
  resolves it like `read`'s: real path, workspace edge, symlinks, protected places. `Read(…)`
  rules cover every reading path tool and `Edit(…)` every writing one; the tool's own rules
  (`NotebookRead(*.ipynb)`) take the same patterns. `default` is the path when the argument is
  left out (`"."` for a directory tool; None: no path, the call is asked). `rule` is the rule an
  "allow always" suggests (`write` suggests `Edit(…)`); None: the tool's own name.
- `CommandAccess`: one argument is a shell command, judged part by part like `bash`'s; `Bash(…)`
  rules cover it.
- `DomainAccess`: one argument is a URL the call reaches; the gate judges its host. Rules take
  `domain:` specifiers (`WebFetch(domain:docs.python.org)`, `WebFetch(domain:*.python.org)`
  for the subdomains), and `WebFetch(…)` rules cover every tool that declares it. Asked by
  default, read-only or not.
- Nothing (no `access`): the gate knows only the name and `read_only` — a read-only tool is
  allowed inside the workspace, anything else is asked, and no rule takes a specifier for it.

Plain data (`kind` tells them apart); the gate, the rule parser, suggestions and compaction look
it up instead of keeping tables of tool names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["CommandAccess", "DomainAccess", "PathAccess", "ToolAccess", "access_of"]


@dataclass(frozen=True, slots=True)
class PathAccess:
    arg: str = "path"
    default: str | None = None
    writes: bool = False
    rule: str | None = None
    kind: Literal["path"] = "path"


@dataclass(frozen=True, slots=True)
class CommandAccess:
    arg: str = "command"
    kind: Literal["command"] = "command"


@dataclass(frozen=True, slots=True)
class DomainAccess:
    arg: str = "url"
    rule: str | None = None
    kind: Literal["domain"] = "domain"


ToolAccess = PathAccess | CommandAccess | DomainAccess


def access_of(tool: object) -> ToolAccess | None:
    """The shape `tool` declares; None for one that declares none (or something else)."""
    found = getattr(tool, "access", None)
    return found if isinstance(found, PathAccess | CommandAccess | DomainAccess) else None
