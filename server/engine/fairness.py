"""Verifiable deals: the commitment to a deal's seed, the seed's mixing, and the cards it deals.

Pure and deterministic, like every engine module: the hub draws the secret (``secrets``) and
publishes :func:`commitment` of it before the deal; after the game anyone holding the record
recomputes everything here and compares (``server.records.verify``). The scheme and its threat
model are in ``docs/fair-deals.md``.

Algorithm ``gambit-deal-v1`` turns a seed into deck orders: the engines' ``order_deck``
(``random.Random(f"{seed}:{salt}").shuffle`` of the deck in its protocol order, one salt per
deal: ``round1``…, ``deal1``…, ``common``/``high``), and ``Random(f"{seed}:{n}")`` for any
later random event (a reshuffle). Replaying the recorded actions from the revealed seed
re-deals exactly what the players were dealt.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

from protocol.actions import action_from_wire
from protocol.codec import ProtocolError

from . import get_game
from .base import State

#: The name and version of the seed → deck order algorithm (and of this scheme).
ALGORITHM = "gambit-deal-v1"
#: Prefix of the text hashed when players' values are mixed into the hub's seed.
MIX_LABEL = "gambit-mix-v1"
#: The hub's seeds are this many random bytes, written as hex (64 characters).
SEED_BYTES = 32


def commitment(seed: str) -> str:
    """SHA-256 of the seed's UTF-8 text, as hex: ``printf %s SEED | sha256sum`` gives it too."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def mix(hub_seed: str, contributions: Iterable[Sequence[Any]] = ()) -> str:
    """The game's seed from the hub's seed and the players' revealed values.

    ``contributions`` are ``(seat, value)`` pairs. With none the seed is the hub's own, so a
    hub-only deal is checked with nothing but SHA-256. With some, the seed is the SHA-256 (hex)
    of ``gambit-mix-v1``, the hub's seed and each ``seat:value`` in seat order, one a line:
    nobody who does not know every part can predict it.
    """
    parts = sorted((int(seat), str(value)) for seat, value in contributions)
    if not parts:
        return hub_seed
    text = "\n".join([MIX_LABEL, hub_seed, *(f"{seat}:{value}" for seat, value in parts)])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _deal_count(state: State, start: int) -> tuple[int, int]:
    """How many ``deal`` events lie in ``state.events[start:]``, and where the scan ended."""
    events = state.events
    return sum(1 for ev in events[start:] if ev.get("e") == "deal"), len(events)


def where_cards_are(state: State) -> dict[str, list[str]]:
    """A copy of every card's place, as the engine keeps it (hands, deck, trump…)."""
    return {place: list(cards) for place, cards in state.card_locations().items()}


class DealLog:
    """Where every card lay each time a deal was made, noted as the game goes.

    The hub keeps one per running game and stores it with the finished game; the verifier
    builds its own from the seed and compares the two.
    """

    def __init__(self, state: State) -> None:
        self.deals: list[dict[str, list[str]]] = [where_cards_are(state)]
        self._scanned = len(state.events)

    def note(self, state: State) -> None:
        """Call after each applied action: a new deal's cards are noted."""
        found, self._scanned = _deal_count(state, self._scanned)
        if found:
            self.deals.append(where_cards_are(state))


def replay_deals(
    params: dict[str, Any], history: Sequence[Sequence[Any]]
) -> tuple[State, list[dict[str, list[str]]], int | None, str | None]:
    """Replay a game, noting every deal: ``(state, deals, failed_step, reason)``.

    ``failed_step`` is the index of the first action the cards refuse (None: all applied) and
    ``reason`` the engine's words for it; the state is left where replay stopped.
    """
    from .errors import RulesError

    game = get_game(params["game"])
    state = game.replay(params, [])
    log = DealLog(state)
    for index, step in enumerate(history):
        try:
            seat, action = step
            state.apply(seat, action_from_wire(action))
        except (RulesError, ProtocolError) as err:
            return state, log.deals, index, str(err)
        except (TypeError, ValueError):
            return state, log.deals, index, "This step is not a [seat, action] pair."
        log.note(state)
    return state, log.deals, None, None
