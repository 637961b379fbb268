"""SafeOutput: the one place a `shard` command's printed text passes through `terminal_safe`.

Sessions, search hits, MCP server names and tool descriptions, error messages: most of what a
command prints comes from a model, a tool or a server. Rather than escape each string where it is
printed (and miss the next one), `shard` runs every command with stdout and stderr behind this
wrapper, which makes each write safe. Commands that colour their own output and already escape
what they render (`run`, `demo`, `batch`), write JSONL (`agent`) or serve (`gateway`) are left
as they are (`RAW_OUTPUT` in shard_kernel.commands).
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Iterator
from typing import TextIO

from shard_kernel.terminal.escape import terminal_safe


class SafeTextStream(io.TextIOBase):
    """A text stream that writes `terminal_safe(text)` to `inner`. No `buffer`: bytes written
    past the text layer would skip the escaping."""

    def __init__(self, inner: TextIO) -> None:
        super().__init__()
        self.inner = inner

    def write(self, s: str) -> int:
        self.inner.write(terminal_safe(s))
        return len(s)

    def flush(self) -> None:
        self.inner.flush()

    def fileno(self) -> int:
        return self.inner.fileno()

    def isatty(self) -> bool:
        return self.inner.isatty()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self.inner.encoding


@contextlib.contextmanager
def safe_output() -> Iterator[None]:
    """stdout and stderr escaped while the block runs."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SafeTextStream(out), SafeTextStream(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
