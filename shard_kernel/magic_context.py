"""`%shard inject`, `%%shard --inject` and `%shard title`: context and names without a turn.

    %shard inject the tests must run on Python 3.11     a note
    %shard inject --file setup.cfg                      a file's text, labelled with its path
    %shard inject --last                                the last cell's output (`_`)
    %%shard --inject --label "fixture data"             the cell's text
    %shard title Login flake

Injected context is logged as a user-visible entry that the agent's next provider request
carries; no turn starts. Works for in-process and gateway agents alike.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Protocol

from shard_core.protocol.commands import CommandReply
from shard_core.types import ContextKind

MAX_INJECT_CHARS = 200_000
"""Longer context is refused: a request that size would crowd out everything else."""


class ContextHost(Protocol):
    name: str

    def inject(
        self, text: str, kind: ContextKind = "note", label: str | None = None
    ) -> CommandReply: ...

    def set_title(self, title: str) -> CommandReply: ...


class InjectError(Exception):
    pass


def add_inject_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kind", choices=["note", "file", "output"], default=None)
    parser.add_argument("--label")


def inject_parser(parser_class: type[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    parser = parser_class(prog="%shard inject", add_help=False)
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--file", help="inject this file's text")
    source.add_argument("--last", action="store_true", help="inject the last output (_)")
    add_inject_options(parser)
    parser.add_argument("text", nargs="*")
    return parser


def context_from_args(
    opts: argparse.Namespace, user_ns: dict[str, Any]
) -> tuple[str, str, str | None]:
    """(text, kind, label) from `%shard inject` arguments, or InjectError saying what is wrong."""
    if opts.file:
        path = Path(opts.file).expanduser()
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise InjectError(f"cannot read {path}: {exc.strerror or exc}") from None
        return text, opts.kind or "file", opts.label or str(opts.file)
    if opts.last:
        if "_" not in user_ns or user_ns["_"] in ("", None):
            raise InjectError("no output yet: run a cell that shows a value first")
        shown = user_ns.get("_oh") or {}
        name = f"Out[{max(shown)}]" if shown else "last output"
        return repr(user_ns["_"]), opts.kind or "output", opts.label or name
    text = " ".join(opts.text)
    return text, opts.kind or "note", opts.label


def inject(host: ContextHost, text: str, kind: str, label: str | None) -> str:
    """Send the context; returns the line the magic prints."""
    if not text.strip():
        raise InjectError("nothing to inject: give text, --file PATH or --last")
    if len(text) > MAX_INJECT_CHARS:
        raise InjectError(
            f"{len(text):,} characters is too much context (at most {MAX_INJECT_CHARS:,})"
        )
    if kind not in ("note", "file", "output"):
        raise InjectError(f"kind must be note, file or output, not {kind!r}")
    reply = host.inject(text, kind, label)  # pyright: ignore[reportArgumentType]
    if not reply.ok:
        raise InjectError(f"{host.name}: {reply.message}")
    what = f"{kind} {label!r}" if label else kind
    return f"{host.name}: injected {what} ({len(text):,} characters); {reply.message}"


def set_title(host: ContextHost, words: list[str]) -> str:
    title = " ".join(words).strip()
    if not title:
        raise InjectError("title takes the new title")
    reply = host.set_title(title)
    if not reply.ok:
        raise InjectError(f"{host.name}: {reply.message}")
    return f"{host.name}: titled {reply.message!r}"
