"""ExitCode: the status every `shard` command exits with, and how a turn or an error maps to one.

One table for scripts (docs/EXIT-CODES.md says the same, a test keeps the two in step). Codes
that already meant something stay: 2 is argparse's bad command line, 3 `shard run`'s blocked
turn, 130 the shell's Ctrl-C; 124 is what timeout(1) returns for a run that ran out of time.
Only the standard library is imported at load: `shard --help` imports this module.
"""

from __future__ import annotations

from enum import IntEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from shard_core.types.errors import ShardError

__all__ = ["ExitCode", "for_error", "for_turn"]


class ExitCode(IntEnum):
    OK = 0
    """the work completed (`rules check`: the call is allowed)"""
    FAILED = 1
    """the work failed: a cell or turn ended in an error or at the step limit, a gateway refused"""
    BAD_INPUT = 2
    """a bad command line, option, notebook, rule, session file or config"""
    BLOCKED = 3
    """it ran, but permission denials blocked the work (or a queued ask went unanswered)"""
    MODEL_ERROR = 4
    """the model provider failed: auth, a rejected request, retries exhausted"""
    NO_MODEL = 5
    """no model is configured (no key, no config.json model, no --model): nothing ran"""
    KERNEL_DIED = 6
    """the agent's kernel process died mid-run"""
    NOT_FOUND = 7
    """a search found nothing (`session search`)"""
    ASK = 10
    """`rules check`: the call would be asked"""
    DENY = 11
    """`rules check`: the call would be denied"""
    TIMED_OUT = 124
    """a cell ran past `--timeout`"""
    INTERRUPTED = 130
    """Ctrl-C (SIGINT) or SIGTERM stopped it, or the turn was aborted"""
    BROKEN_PIPE = 141
    """the reader of stdout went away (`… | head`)"""


def for_error(exc: ShardError) -> ExitCode:
    """The status for a deliberate error that ends a command."""
    # imported here: `shard --help` loads this module and must not pay for the engine's types
    from shard_core.types.errors import (
        ConfigError,
        ProviderError,
        SessionLockedError,
        SessionNotFoundError,
    )

    if isinstance(exc, ProviderError):
        return ExitCode.MODEL_ERROR
    if isinstance(exc, SessionLockedError):
        return ExitCode.FAILED
    if isinstance(exc, ConfigError | SessionNotFoundError):
        return ExitCode.BAD_INPUT
    return ExitCode.FAILED


def for_turn(reason: str, *, blocked: bool) -> ExitCode:
    """The status of one turn from how it ended (TurnEndEvent.reason) and whether denials
    blocked it (denials.DenialWatch)."""
    if reason == "completed":
        return ExitCode.BLOCKED if blocked else ExitCode.OK
    if reason == "aborted":
        return ExitCode.INTERRUPTED
    return ExitCode.MODEL_ERROR if reason == "error" else ExitCode.FAILED
