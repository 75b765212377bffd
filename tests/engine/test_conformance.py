"""One conformance suite over every game, player count and main option, with random play.

Properties (hypothesis chooses the seeds): every card is in exactly one place at every step;
hand sizes follow each game's rules;
every game ends; no view ever carries a card its seat cannot know (checked on the msgpack form
of the view); refused actions leave the state byte-identical; snapshot/restore and replay from
the creation parameters reproduce the state exactly.
"""

from __future__ import annotations

import random
from collections import Counter

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.actions import Action, Draw, NextDeal, Play, Stay
from server.engine import RulesError, get_game
from server.engine.errors import IllegalAction, MalformedAction, OutOfTurn

from .play import CardCodes, is_hidden_place, owner, random_step, strings_in

CASES = [
    ("prophets_gambit", 3, {}),
    ("prophets_gambit", 4, {}),
    ("prophets_gambit", 5, {}),
    ("prophet", 3, {"cap": 3}),
    ("prophet", 4, {"cap": 4, "schedule": "up_down"}),
    ("prophet", 5, {"deck": 52, "cap": 3, "schedule": "down_up"}),
    ("prophet", 6, {"schedule": "fixed", "cap": 2}),
    ("fortunes", 4, {}),
    ("fortunes", 4, {"betting": "raise"}),
    ("fortunes", 4, {"betting": "bid"}),
    ("fortunes", 4, {"betting": "target", "max_deals": 2}),
    ("fortunes", 4, {"betting": "target_exact", "max_deals": 2}),
]

#: The Fortunes cases that play longest (a whole rubber; the target bets over two deals): each
#: in a file of its own (test_conformance_rubber.py, test_conformance_targets.py), so that with
#: `--dist loadfile` the two workers share them instead of one worker playing them all.
LONG_CASES = [
    ("fortunes", 4, {}),
    ("fortunes", 4, {"betting": "target", "max_deals": 2}),
    ("fortunes", 4, {"betting": "target_exact", "max_deals": 2}),
]


class Knowledge:
    """What each seat may have seen so far, tracked from card locations, not from views."""

    def __init__(self, n: int) -> None:
        self.public: set[str] = set()
        self.own: dict[int, set[str]] = {s: set() for s in range(n)}

    def observe(self, locations: dict[str, list[str]]) -> None:
        for place, cards in locations.items():
            if not is_hidden_place(place):
                self.public.update(cards)
            elif (seat := owner(place)) is not None:
                self.own[seat].update(cards)


def glimpses(state, seat: int, action: dict, reshuffle: bool = True) -> dict[int | None, set[str]]:
    """Cards a seat legitimately learns by a game's own mechanism (PG: Seer and Darklord);
    under None, cards everyone saw face-up during the action (PG: discarded, then reshuffled
    into the deck before the action ended, so never in a public place between steps; Prophet:
    the final card of a round, played face-up, then dealt again in the same action).
    ``reshuffle=False``: not PG's discarded-then-reshuffled cards (found by playing the
    action on a copy): a caller that applies the action reads them from its events."""
    if state.game.name == "prophet":
        return {None: {action.card}} if type(action) is Play else {}
    if state.game.name != "prophets_gambit":
        return {}
    from .pg_knowledge import pg_glimpses

    return pg_glimpses(state, seat, action, reshuffle)


def check_hand_sizes(state, views: list[dict]) -> None:
    """Hand sizes follow each game's rules, read from the seats' own views (``views``: each
    seat's ``state.view`` of the state as it is now)."""
    sizes = [len(v["hand"]) for v in views]
    name = state.game.name
    if name == "prophet":
        v = views[0]
        played = {seat for seat, _ in v["trick"]}
        done = sum(v["tricks"])
        assert sizes == [v["cards"] - done - (s in played) for s in range(state.num_players)]
    elif name == "fortunes":
        v = views[0]
        played = {seat for seat, _ in v["trick"]["cards"]} if v["trick"] else set()
        done = len(v["tricks"])
        assert sizes == [19 - done - (s in played) for s in range(4)]
        assert [p["cards"] for p in v["seats"]] == sizes
    elif name == "prophets_gambit":
        v = views[0]
        skipped = any(e["e"] == "draw_skipped" for e in state.events)
        assert v["hand_sizes"] == sizes
        if v["phase"] == "bid":
            assert all(n == 6 - (views[s]["bid"] is not None) for s, n in enumerate(sizes))
        for s, view in enumerate(views):
            if view["ask"] and view["ask"]["kind"] == "turn" and not skipped:
                assert sizes[s] == 6 - view["round"], "a turn starts with 5, then 4 cards"
        if v["over"] and not skipped:
            donjon = any(e["e"] == "donjon" for e in state.events)
            for s, n in enumerate(sizes):
                innocent = "HIN" in v["fronts"][s]
                assert n == 3 or (donjon and innocent and n > 3), f"seat {s} ends with {n}"


def check_refusals(state, rng: random.Random) -> None:
    before = state.snapshot()
    pending = state.pending()
    seat = min(pending)
    idle = [s for s in range(state.num_players) if s not in pending]
    if idle:
        with pytest.raises(OutOfTurn):
            state.apply(rng.choice(idle), state.legal_actions(seat)[0])
    # Not actions, a wire map (the hub reads those into actions first), and other games'.
    other = [cls.of() for cls in (Draw, Stay, NextDeal) if cls not in type(state).ACTIONS]
    for bad in (None, [], {"type": "play", "card": "S7"}, "play", *other):
        with pytest.raises(MalformedAction):
            state.apply(seat, bad)
    with pytest.raises(MalformedAction):
        state.apply(99, state.legal_actions(seat)[0])
    legal = state.legal_actions(seat)
    for candidate in forged(state, legal):
        if candidate not in legal:
            with pytest.raises(RulesError) as err:
                state.apply(seat, candidate)
            assert isinstance(err.value, (IllegalAction, MalformedAction))
            assert str(err.value)
    assert state.snapshot() == before


def forged(state, legal: list[Action]) -> list[Action]:
    """Well-formed actions that are probably illegal: a legal one with its field changed."""
    out: list[Action] = []
    all_cards = list(state.game.cards(state.options))
    for action in legal[:3]:
        kind = type(action)
        value = getattr(action, kind.FIELD) if kind.FIELD else None
        if isinstance(value, str):
            out.extend(kind(c) for c in all_cards[:: max(1, len(all_cards) // 6)])
        elif isinstance(value, int):
            out.extend(kind(v) for v in (0, value + 1, 5))
    return out


def run_case(name: str, n: int, options: dict, seed: int) -> None:
    game = get_game(name)
    rng = random.Random(seed)
    state = game.new_state(n, options, dealer=seed % n, seed=seed)
    deck = Counter(game.cards(state.options))
    codes = CardCodes(deck)  # the cards in play: what no view may show a seat that never saw it
    known = Knowledge(n)
    extra: dict[int | None, set[str]] = {s: set() for s in (None, *range(n))}
    steps = 0
    while True:
        locations = state.card_locations()
        placed = Counter(c for cards in locations.values() for c in cards)
        assert placed == deck, "a card is missing or in two places"
        known.observe(locations)
        public = known.public | extra[None]
        hidden = codes.outside(state.view(None), public)
        assert not hidden, f"spectator sees hidden {hidden}"
        # The public part, shared by all, holds only what every one of them knows; the private
        # part adds to it and changes none of it.
        shared = state.public_view()
        assert not codes.outside(shared, public), "the public part leaks"
        for seat in (None, *range(n)):
            private = state.private_view(seat)
            assert not set(private) & set(shared), "a private field shadows a public one"
        views = [state.view(seat) for seat in range(n)]  # made once a step, for both checks
        for seat in range(n):
            hidden = codes.outside(views[seat], public | known.own[seat] | extra[seat])
            assert not hidden, f"seat {seat} sees hidden {hidden}"
        check_hand_sizes(state, views)
        if state.is_over:
            break
        if steps % 7 == 0:
            check_refusals(state, rng)
        seat = rng.choice(sorted(state.pending()))
        action = rng.choice(state.legal_actions(seat))
        for who, cards in glimpses(state, seat, action).items():
            extra[who] |= cards
        state.apply(seat, action)
        steps += 1
        assert steps < 20000, "game did not end"
    outcome = state.outcome()
    assert sorted(outcome.ranking) == list(range(n))
    assert outcome.winners and set(outcome.winners) <= set(range(n))
    assert sum(outcome.payouts(7)) == sum(outcome.contributions or [1] * n) * 7
    assert not state.pending()
    assert game.replay(state.params, state.history).snapshot() == state.snapshot()
    restored = game.restore(state.snapshot())
    assert restored.snapshot() == state.snapshot()
    assert restored.outcome().to_wire() == outcome.to_wire()


@pytest.mark.parametrize(
    ("name", "n", "options"), [c for c in CASES if c not in LONG_CASES], ids=lambda v: str(v)
)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**31))
def test_random_play_keeps_every_invariant(name, n, options, seed):
    run_case(name, n, options, seed)


@pytest.mark.parametrize(("name", "n", "options"), CASES[:8], ids=lambda v: str(v))
def test_restore_mid_game_continues_identically(name, n, options):
    game = get_game(name)
    state = game.new_state(n, options, dealer=1, seed=99)
    rng = random.Random(5)
    for _ in range(25):
        if state.is_over:
            break
        random_step(state, rng)
    copy = game.restore(state.snapshot())
    for seat in range(n):
        assert copy.view(seat) == state.view(seat)
    rng_a, rng_b = random.Random(11), random.Random(11)
    while not state.is_over:
        random_step(state, rng_a)
        random_step(copy, rng_b)
    assert copy.snapshot() == state.snapshot()


def test_every_game_is_registered_with_its_seat_range():
    from server.engine import all_games

    games = all_games()
    assert {(g.name, g.min_players, g.max_players) for g in games.values()} == {
        ("prophets_gambit", 3, 5),
        ("prophet", 3, 6),
        ("fortunes", 4, 4),
    }


@pytest.mark.parametrize(("name", "n", "options"), CASES[::4], ids=lambda v: str(v))
def test_card_codes_found_in_the_bytes_are_the_decoded_messages(name, n, options):
    """``CardCodes.outside`` (the views' check above) finds what walking the decoded views
    finds, at every step of a game, and is not fooled by a code's bytes inside other data."""
    game = get_game(name)
    state = game.new_state(n, options, dealer=0, seed=3)
    codes = CardCodes(game.cards(state.options))
    rng = random.Random(3)
    for _ in range(40):
        if state.is_over:
            break
        for seat in (None, *range(n)):
            view = state.view(seat)
            allowed = set(rng.sample(sorted(codes.codes), len(codes.codes) // 2))
            assert codes.outside(view, allowed) == set(strings_in(view)) & codes.codes - allowed
        random_step(state, rng)
    card = min(codes.codes)
    tricky = {"name": "\u00a2" + card, "n": 0xA2 << 16 | int.from_bytes(card.encode()[:2])}
    assert codes.pattern.search(msgpack.packb(tricky)) and not codes.outside(tricky, set())
    assert codes.outside({"hand": [card], "name": "\u00a2" + card}, set()) == {card}
