"""The bots' memos of pure results, emptied every few minutes where bots think for days.

Prophet's Gambit's bots remember the potential of every hand they valued
(``prophets_gambit._POTENTIALS``, ``strong/pg_sim._POT``): a strong bot's rollouts ask the
same ones many times within a decision. Both are bounded (emptied when full), but the strong
memo holds 131,072 entries, and in ``bench/soak.py`` the bots' process rose all through each
half hour as it filled (36 → 49 MB). A decision needs only its own worlds' hands, so the
process that thinks for the hub empties them every :data:`EVERY` seconds
(``server/hub/bot_pool.py``): its memory levels off at a few minutes' hands, and the first
decisions after each emptying make theirs again.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from . import prophets_gambit
from .strong import pg_sim

#: Seconds between two emptyings.
EVERY = 120.0


def forget() -> int:
    """Empty the memos; the entries let go."""
    dropped = len(prophets_gambit._POTENTIALS) + len(pg_sim._POT)
    prophets_gambit._POTENTIALS.clear()
    pg_sim._POT.clear()
    return dropped


class Ages:
    """Empties the memos once :data:`EVERY` seconds have passed, when asked (at each decision:
    the bots' process has no loop to keep time)."""

    def __init__(self, every: float = EVERY, clock: Callable[[], float] = time.monotonic) -> None:
        self.every = every
        self.clock = clock
        self.last = clock()
        self.forgotten = 0

    def tick(self) -> None:
        now = self.clock()
        if now - self.last >= self.every:
            self.last = now
            forget()
            self.forgotten += 1
