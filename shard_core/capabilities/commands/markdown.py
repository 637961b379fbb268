"""Markdown the bundled commands write: text kept as itself, fenced text, the extensions table."""

from __future__ import annotations

import re

from shard_core.engine.extension_host import ExtensionHost


def literal(text: str) -> str:
    """`text` as itself in markdown: clients name themselves, and a name must not become a
    link, a tag or a table cell border (every ASCII punctuation mark backslash-escaped)."""
    return re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", text)


def fenced(text: str) -> str:
    """A code block that no backtick run inside `text` can close: session text (which tools
    and models wrote) stays text when Jupyter renders the markdown as HTML."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def extensions_table(host: ExtensionHost) -> str:
    """Markdown: one row per diagnostic (registered / replaced / failed), by extension."""
    if not host.diagnostics:
        return "No extensions found."
    lines = [f"Installed: {', '.join(host.installed) or 'none'}", "",
             "| extension | level | what |", "|---|---|---|"]  # fmt: skip
    lines += [f"| {d.extension} | {d.level} | {d.message} |" for d in host.diagnostics]
    return "\n".join(lines)
