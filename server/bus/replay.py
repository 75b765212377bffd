"""Nothing lost while NATS restarts: each direction of a gateway's link with the hub numbers
its messages, keeps them until the other side says it has them, and sends them again when
asked (see docs/architecture.md, "When NATS restarts").

NATS itself keeps nothing: a message published while the server is frozen or gone, or
flushed from a client's reconnect buffer before the other side has subscribed again, is lost
without a word. So the receiver takes only the next number (a later one means some are
missing: it is dropped, and the receiver asks for everything from the first missing one),
and learns the sender's last number from its heartbeat, which travels behind the messages
(the same publisher, the same subscription: NATS keeps their order), so a lost tail is
noticed too. A message comes once, in order, whichever copy arrives.

What a sender keeps is bounded (:data:`REPLAY_BYTES`); it forgets the oldest unacknowledged
messages past that. Asked for one it forgot, it cannot replay: the gateway's sessions are
then opened again on the hub with their apps' hellos, and the hub answers as to a player who
reconnects (lobby, seats, tables, whole): the state is whole again, and what was said in the
gap is gone.
"""

from __future__ import annotations

import itertools
from collections import deque

#: What one side keeps for one link until the other says it has it, at most (bytes).
REPLAY_BYTES = 16 * 1024 * 1024
#: Counted for each message kept, besides its payload.
OVERHEAD = 64
#: Seconds before the same missing message is asked for again.
ASK_EVERY = 1.0


class Outbox:
    """Messages sent and numbered 1, 2, …, kept until acknowledged (bounded)."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = REPLAY_BYTES if limit is None else limit
        #: The number the next message gets.
        self.next = 1
        #: The number of the oldest message kept (kept: ``first`` … ``next - 1``).
        self.first = 1
        self._kept: deque[tuple[str, bytes]] = deque()
        self._size = 0
        #: Messages forgotten before they were acknowledged (the bound was reached).
        self.forgotten = 0

    @property
    def last(self) -> int:
        """The number of the last message sent (0: none yet)."""
        return self.next - 1

    def add(self, subject: str, payload: bytes) -> int:
        """Keep a message (to be published on ``subject``); its number."""
        seq = self.next
        self.next += 1
        self._kept.append((subject, payload))
        self._size += len(payload) + OVERHEAD
        while self._size > self.limit and self._kept:
            self._drop()
            self.forgotten += 1
        return seq

    def _drop(self) -> None:
        _, payload = self._kept.popleft()
        self._size -= len(payload) + OVERHEAD
        self.first += 1

    def acked(self, got: int) -> None:
        """The other side has every message up to ``got``: they need not be kept."""
        while self._kept and self.first <= got:
            self._drop()

    def since(self, seq: int) -> list[tuple[int, str, bytes]] | None:
        """Every message from number ``seq`` on, to send again (None: some are forgotten)."""
        if seq < self.first:
            return None
        start = seq - self.first
        kept = itertools.islice(self._kept, start, None)
        return [(seq + i, subject, payload) for i, (subject, payload) in enumerate(kept)]

    def clear(self) -> None:
        """Forget every message kept (the link starts again after the last one)."""
        self._kept.clear()
        self._size = 0
        self.first = self.next


class Inbox:
    """The numbers received: takes the next one only, and says what to ask for again."""

    def __init__(self) -> None:
        #: Every message up to this number has been taken.
        self.got = 0
        self._asked = 0
        self._asked_at = float("-inf")

    def take(self, seq: int, reset: bool = False) -> bool:
        """Whether message ``seq`` is to be handled now: it is the next one (or the sender
        starts again from it: ``reset``). False: a copy of one taken, or some are missing."""
        if seq == self.got + 1 or (reset and seq > self.got):
            self.got = seq
            return True
        return False

    def ask(self, now: float) -> int | None:
        """The number to ask the sender to send again from (None: just asked for it)."""
        want = self.got + 1
        if want == self._asked and now - self._asked_at < ASK_EVERY:
            return None
        self._asked, self._asked_at = want, now
        return want


class Link:
    """One side's end of a gateway's link with the hub: what it sent, what it received."""

    def __init__(self, limit: int | None = None) -> None:
        self.outbox = Outbox(limit)
        self.inbox = Inbox()
