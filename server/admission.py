"""Who may open a connection, before they have said who they are (the SSH host's and the hub's
TCP listener's front doors).

Everything here happens per address and from the moment a TCP connection is made, because a
connection that never logs in costs the server as much as one that does until the login
timeout: ~200 sockets that sent nothing used to fill ``--max-sessions`` and lock every player
out. So, like OpenSSH's ``MaxStartups`` and ``PerSourcePenalties``:

* an address may hold at most ``max_per_address`` connections, authenticated or not;
* it may open new ones at a sustained rate (a token bucket: a burst, then so many a second);
* connections that have not authenticated are few (``max_unauthenticated``); when they are
  all taken, the oldest is dropped to make room, so a flood cannot keep a player out for
  longer than it takes them to log in;
* a client that keeps failing to authenticate is slowed (each failure answers later than the
  last), then refused for a while.
"""

from __future__ import annotations

import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class AdmissionLimits:
    max_per_address: int = 10
    max_unauthenticated: int = 50
    #: New connections per address: a burst of this many, refilled at this rate.
    connection_burst: int = 30
    connections_per_second: float = 1.0
    #: Failed logins per address within ``failure_window`` seconds before it is refused
    #: for ``ban_seconds``.
    max_auth_failures: int = 10
    failure_window: float = 600.0
    ban_seconds: float = 600.0
    #: The answer to a failed login waits this long, doubling with each recent failure, up to
    #: ``max_failure_delay``.
    failure_delay: float = 0.25
    max_failure_delay: float = 4.0


@dataclass(slots=True)
class _Bucket:
    tokens: float
    stamp: float


@dataclass(slots=True)
class Admission:
    limits: AdmissionLimits
    clock: Callable[[], float] = time.monotonic
    #: Open connections by address (authenticated or not).
    connections: Counter[str] = field(default_factory=Counter)
    #: Connections that have not authenticated, oldest first: connection → address.
    pending: dict[Any, str] = field(default_factory=dict)
    _buckets: dict[str, _Bucket] = field(default_factory=dict)
    _failures: dict[str, deque[float]] = field(default_factory=dict)
    _banned: dict[str, float] = field(default_factory=dict)
    #: Connections refused, by why: "banned", "rate", "per_address" (and the host's "full").
    refused: Counter[str] = field(default_factory=Counter)
    #: Refusals explained per address in the current minute: (minute's start, count).
    _explained: dict[str, tuple[float, int]] = field(default_factory=dict)

    def refusal(self, address: str) -> str | None:
        """Why a new connection from ``address`` is refused, or None (it may come in)."""
        now = self.clock()
        until = self._banned.get(address)
        if until is not None:
            if now < until:
                self.refused["banned"] += 1
                minutes = max(1, round((until - now) / 60))
                return f"Too many failed logins from your address; try again in {minutes} min."
            del self._banned[address]
        # Every attempt costs a token, let in or not: a flood of them is slowed as a whole.
        if not self._take_token(address, now):
            self.refused["rate"] += 1
            return "Too many new connections from your address; wait a moment."
        if self.connections[address] >= self.limits.max_per_address:
            self.refused["per_address"] += 1
            return "Too many connections from your address. Close one and try again."
        return None

    def explain(self, address: str, per_minute: int = 5) -> bool:
        """Whether to say why a refused connection from ``address`` is refused (and log it):
        the first few times a minute. A client refused over and over is only closed, which
        costs the server almost nothing and the log not a line each time."""
        now = self.clock()
        start, count = self._explained.get(address, (now, 0))
        if now - start >= 60:
            start, count = now, 0
        self._explained[address] = (start, count + 1)
        if len(self._explained) > 4096:
            self._explained = {a: v for a, v in self._explained.items() if now - v[0] < 60}
        return count < per_minute

    def opened(self, conn: Any, address: str) -> Any | None:
        """Count a connection that was let in; returns a pending connection to drop to make
        room for it, if every unauthenticated place is taken."""
        self.connections[address] += 1
        victim = None
        if len(self.pending) >= self.limits.max_unauthenticated:
            self.refused["logging_in"] += 1  # the oldest one logging in is dropped
            victim = next(iter(self.pending))
            del self.pending[victim]
        self.pending[conn] = address
        return victim

    def authenticated(self, conn: Any) -> None:
        self.pending.pop(conn, None)

    def closed(self, conn: Any, address: str) -> None:
        self.pending.pop(conn, None)
        self.connections[address] -= 1
        if self.connections[address] <= 0:
            del self.connections[address]
        self._forget_idle_buckets()

    def unauthenticated(self, address: str | None = None) -> int:
        if address is None:
            return len(self.pending)
        return sum(1 for a in self.pending.values() if a == address)

    # --- failed logins -------------------------------------------------------------------

    def failed(self, address: str) -> float:
        """Note a failed login; returns how long to wait before answering it."""
        now = self.clock()
        recent = self._recent_failures(address, now)
        recent.append(now)
        self.refused["auth_failed"] += 1
        if len(recent) >= self.limits.max_auth_failures:
            self._banned[address] = now + self.limits.ban_seconds
            recent.clear()
        delay = self.limits.failure_delay * 2 ** (len(recent) - 1) if recent else 0.0
        return min(delay, self.limits.max_failure_delay)

    def banned(self, address: str) -> bool:
        until = self._banned.get(address)
        return until is not None and self.clock() < until

    def _recent_failures(self, address: str, now: float) -> deque[float]:
        recent = self._failures.setdefault(address, deque())
        while recent and recent[0] < now - self.limits.failure_window:
            recent.popleft()
        return recent

    # --- the rate of new connections -----------------------------------------------------

    def _take_token(self, address: str, now: float) -> bool:
        limits = self.limits
        bucket = self._buckets.get(address)
        if bucket is None:
            bucket = self._buckets[address] = _Bucket(float(limits.connection_burst), now)
        bucket.tokens = min(
            limits.connection_burst,
            bucket.tokens + (now - bucket.stamp) * limits.connections_per_second,
        )
        bucket.stamp = now
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            return True
        return False

    def _forget_idle_buckets(self) -> None:
        """A bucket that has refilled, of an address with nothing open, is the default one:
        drop it, so that addresses that came and went cost no memory."""
        if len(self._buckets) < 1024:
            return
        now = self.clock()
        rate = self.limits.connections_per_second
        full = float(self.limits.connection_burst)
        for address, bucket in list(self._buckets.items()):
            refilled = bucket.tokens + (now - bucket.stamp) * rate >= full
            if refilled and address not in self.connections:
                del self._buckets[address]
        for address in list(self._failures):
            if not self._recent_failures(address, now):
                del self._failures[address]
