"""Playing a forced card for the player (opt-in: the ``autoplay_forced`` preference).

When a trick game leaves a player exactly one legal action and it is a card, pressing Enter is
busywork. With the preference on, the table screen plays it after a short random pause, so
nobody can tell a forced card from a considered one by how fast it comes. The pending play is
dropped when the view changes (something happened, the decision moved on) or when the player
acts first.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable
from typing import Any

from textual.message_pump import MessagePump
from textual.timer import Timer

from protocol.actions import Action, action_from_wire

#: The pause before a forced card is played, in seconds (low, high); drawn uniformly.
DELAY: tuple[float, float] = (0.6, 2.0)


def forced_card(legal: list[dict[str, Any]]) -> Action | None:
    """The action to play for the player: the only legal one (as the view lists it), if it
    plays a card."""
    if len(legal) == 1 and "card" in legal[0]:
        return action_from_wire(legal[0])
    return None


class AutoPlay:
    """One table screen's pending automatic play.

    The screen calls :meth:`consider` with every new view (its key says which decision the
    view is about) and :meth:`cancel` when the player acts; ``act`` sends an action exactly as
    the player's key would."""

    def __init__(
        self,
        owner: MessagePump,
        act: Callable[[Action], None],
        *,
        rng: random.Random | None = None,
    ) -> None:
        self._owner = owner
        self._act = act
        self._rng = rng or random.Random()
        self._timer: Timer | None = None
        self._key: Hashable = None
        #: The action the timer will play, if one is pending.
        self.pending: Action | None = None

    def consider(self, key: Hashable, legal: list[dict[str, Any]], *, enabled: bool) -> None:
        """Look at a (possibly unchanged) view: ``key`` names the decision, ``legal`` is what
        the player may do. A new key cancels a pending play and, for a forced card, starts one;
        the same key again changes nothing (a decision is played for at most once)."""
        key = (key, enabled)
        if key == self._key:
            return
        self.cancel()
        self._key = key
        action = forced_card(legal) if enabled else None
        if action is None:
            return
        self.pending = action
        low, high = DELAY
        self._timer = self._owner.set_timer(self._rng.uniform(low, high), self._fire)

    def cancel(self) -> None:
        """Drop the pending play (the player acted, or the decision is gone)."""
        if self._timer is not None:
            self._timer.stop()
        self._timer = None
        self.pending = None

    def _fire(self) -> None:
        action = self.pending
        self._timer = None
        self.pending = None
        if action is not None:
            self._act(action)
