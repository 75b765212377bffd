"""Per-player chat rate limiting: a token bucket, kind to people typing by hand."""

from __future__ import annotations

import time


class RateLimiter:
    """Allows a burst of ``burst`` messages, refilled at ``per_second``."""

    def __init__(self, burst: int, per_second: float, clock=time.monotonic) -> None:
        self.burst = burst
        self.per_second = per_second
        self.clock = clock
        self.tokens = float(burst)
        self.stamp = clock()

    def allow(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.per_second)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False
