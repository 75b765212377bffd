"""The app's part of players' entropy: commit to a random value for the table's next deal,
then reveal it once commitments close, without the player doing anything.

The hub shows each table's deal as ``info.deal`` (its commitment, the phase, which seats have
committed and revealed); this module says what to send in answer. A value is drawn once per
deal and kept until that deal is dealt, so an app never commits twice or reveals a value it
did not commit to. See ``docs/fair-deals.md``.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from protocol.requests import Entropy as EntropyRequest

#: Deals remembered per app (old ones are forgotten first).
KEPT = 32


class Entropy:
    """What this app committed to and revealed, by table and deal."""

    def __init__(self) -> None:
        #: (table, the deal's commitment) → the value drawn for it.
        self.values: dict[tuple[int, str], str] = {}
        self.revealed: set[tuple[int, str]] = set()

    def answer(self, message: dict[str, Any]) -> EntropyRequest | None:
        """The ``entropy`` message to send after this ``table`` message, if any."""
        table, seat = message.get("table"), message.get("seat")
        deal = (message.get("info") or {}).get("deal")
        if not isinstance(table, int) or table <= 0 or seat is None or not deal:
            return None
        phase = deal.get("phase")
        key = (table, str(deal.get("commitment")))
        if phase == "commit" and seat not in deal.get("committed", ()) and key not in self.values:
            value = secrets.token_hex(32)
            self._keep(key, value)
            digest = hashlib.sha256(value.encode()).hexdigest()
            return EntropyRequest(table, key[1], commit=digest)
        if (
            phase == "reveal"
            and key in self.values
            and key not in self.revealed
            and seat in deal.get("committed", ())
            and seat not in deal.get("revealed", ())
        ):
            self.revealed.add(key)
            return EntropyRequest(table, key[1], reveal=self.values[key])
        return None

    def _keep(self, key: tuple[int, str], value: str) -> None:
        self.values[key] = value
        while len(self.values) > KEPT:
            oldest = next(iter(self.values))
            del self.values[oldest]
            self.revealed.discard(oldest)
