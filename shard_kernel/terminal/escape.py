"""Untrusted text made safe to print on a terminal: its control sequences shown, never obeyed.

Model replies, tool output, file names and error messages can hold ESC sequences (OSC 52 writes
the clipboard, OSC 0 the window title, CSI moves the cursor or clears the screen), C1 controls
(U+009B is a one-character CSI on some terminals), a lone carriage return that overwrites the
line, or bidi overrides that reorder what is shown. Each becomes a visible escape (`\\x1b`,
`\\u202e`); newlines and tabs stay. Shard's own colours are added after this, by the renderer.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """`text` with every control character except newline and tab shown as an escape
    (a CRLF line end is kept as a newline)."""
    return _UNSAFE.sub(_visible, text.replace("\r\n", "\n"))
