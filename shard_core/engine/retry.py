"""RetryPolicy: bounded retries with exponential backoff that honours retry-after."""

from __future__ import annotations

from dataclasses import dataclass

from shard_core.types.errors import ProviderRetryableError


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 4
    base_delay: float = 0.5
    max_delay: float = 30.0

    def delay(self, attempt: int, error: ProviderRetryableError) -> float | None:
        """Seconds to wait before attempt `attempt + 1`, or None when out of attempts."""
        if attempt + 1 >= self.attempts:
            return None
        if error.retry_after is not None:
            return min(max(error.retry_after, 0.0), self.max_delay)
        return min(self.base_delay * (2**attempt), self.max_delay)
