"""Every exception Shard raises on purpose, in one tree.

    ShardError
    ├── ConfigError             bad configuration or arguments (a user can fix it)
    ├── SessionError            the session log
    │   ├── SessionLockedError  another writer holds the log (names pid and host)
    │   └── SessionNotFoundError
    ├── ProviderError           a model provider failed (SDK errors are translated to these)
    │   ├── NoModelError            no model is configured: says what to set, never retried
    │   ├── ProviderAuthError       401/403: never retried
    │   ├── ProviderRequestError    other 4xx: never retried
    │   └── ProviderRetryableError  429, 5xx, overloaded, connection: retried with backoff
    ├── ProtocolError           a message that does not fit the protocol
    │   └── FramingError        a JSONL record that cannot be decoded (names the line)
    └── ExtensionError          an extension failed to install

Tool failures are not exceptions: a tool returns `ToolResult.error(...)` for the model.
"""

from __future__ import annotations


class ShardError(Exception):
    """Base of every deliberate Shard error."""


class ConfigError(ShardError):
    pass


class SessionError(ShardError):
    pass


class SessionLockedError(SessionError):
    def __init__(self, path: str, holder: str) -> None:
        super().__init__(f"session {path} is locked by another writer ({holder})")
        self.path = path
        self.holder = holder


class SessionNotFoundError(SessionError):
    pass


class ProviderError(ShardError):
    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class NoModelError(ProviderError):
    pass


class ProviderAuthError(ProviderError):
    pass


class ProviderRequestError(ProviderError):
    pass


class ProviderRetryableError(ProviderError):
    def __init__(
        self, message: str, *, status: int | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(message, status=status)
        self.retry_after = retry_after


class ProtocolError(ShardError):
    pass


class FramingError(ProtocolError):
    def __init__(self, message: str, *, line: int) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


class ExtensionError(ShardError):
    pass
