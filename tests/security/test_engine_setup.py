"""Setup input (issue 17, hole 9): every bad argument to a game's setup raises BadSetup.

``new_state``, ``resolve_options`` and ``replay`` take values from clients and from storage, so
a wrong type or shape must be refused with the engines' typed error and a readable reason,
never a bare TypeError or ValueError from deep in a deal, and never quietly accepted (a
dealer of ``True``, a deck size of ``52.0``). The last tests feed arbitrary msgpack-like data.
"""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from protocol.actions import action_from_wire
from protocol.cards import DECKS
from protocol.codec import ProtocolError
from server.engine import BadSetup, MalformedAction, RulesError, get_game

GAMES = ("prophet", "prophets_gambit", "fortunes")
#: A card code from some deck that each game does not use.
FOREIGN = {"prophet": "W1", "prophets_gambit": "AS", "fortunes": "HSE"}


def setup(name: str, **kwargs: Any):
    """``new_state`` for ``name`` with 4 players (every game seats 4) unless told otherwise."""
    kwargs.setdefault("num_players", 4)
    return get_game(name).new_state(**kwargs)


def refused(name: str, match: str | None = None, **kwargs: Any) -> BadSetup:
    """Assert that ``setup`` raises BadSetup (matching ``match``) with a readable message."""
    with pytest.raises(BadSetup, match=match) as info:
        setup(name, **kwargs)
    err = info.value
    assert err.code == "bad_setup" and err.message
    msgpack.packb(err.to_wire())  # the error itself can go over the wire
    return err


def full_deck(name: str, options: dict[str, Any] | None = None) -> list[str]:
    """Every card ``name`` plays with these options, in the protocol's order."""
    game = get_game(name)
    return list(game.cards(game.resolve_options(4, options)))


# --- the five reported cases, in every game ---------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
def test_a_card_that_is_a_list_is_refused(name):
    refused(name, "card codes", deck=[["AS"]])


@pytest.mark.parametrize("name", GAMES)
def test_a_card_that_is_a_map_is_refused(name):
    refused(name, "card codes", deck=[{"a": 1}])


@pytest.mark.parametrize("name", GAMES)
def test_options_that_are_text_are_refused(name):
    refused(name, "options must be a map", options="cap")


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("dealer", [True, False])
def test_a_bool_dealer_is_refused(name, dealer):
    refused(name, "dealer", dealer=dealer)


@pytest.mark.parametrize("value", [52.0, 32.0, True])
def test_a_float_or_bool_deck_size_is_refused(value):
    refused("prophet", "Option deck", options={"deck": value})


@pytest.mark.parametrize("name", ["prophets_gambit", "fortunes"])
def test_a_deck_option_is_unknown_elsewhere(name):
    refused(name, "no option 'deck'", options={"deck": 52.0})


# --- player count -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("players", [None, "4", 4.0, True, False, [4], {}, -1, 0, 2, 7, 2**70])
def test_bad_player_counts(name, players):
    refused(name, "takes .* players", num_players=players)


@pytest.mark.parametrize("name", GAMES)
def test_resolve_options_checks_the_player_count_too(name):
    with pytest.raises(BadSetup, match="players"):
        get_game(name).resolve_options(True, {})
    with pytest.raises(BadSetup, match="players"):
        get_game(name).resolve_options("4", None)


# --- dealer -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("dealer", [None, "0", 0.0, 1.5, -1, 4, 2**70, [0], {"seat": 0}])
def test_bad_dealers(name, dealer):
    refused(name, "dealer must be one of the seats 0 to 3", dealer=dealer)


# --- seed -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("seed", [1.5, 0.0, float("nan"), True, False, [1], {"a": 1}, b"seed"])
def test_seeds_of_the_wrong_type(name, seed):
    refused(name, "seed must be a whole number or text", seed=seed)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("seed", [2**64, -(2**63) - 1, pytest.param(10**5000, id="huge")])
def test_seeds_that_cannot_be_stored(name, seed):
    # Old code accepted these and the first snapshot failed with OverflowError.
    refused(name, "seed must be a whole number from", seed=seed)


@pytest.mark.parametrize("name", GAMES)
def test_a_seed_that_is_not_valid_text(name):
    refused(name, "seed must be valid text", seed="ab\ud800")


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("seed", [None, 0, -(2**63), 2**64 - 1, 2**63, "", "table:3:1", "ünï"])
def test_every_storable_seed_still_deals(name, seed):
    state = setup(name, seed=seed)
    again = get_game(name).restore(state.snapshot())
    assert again.view(0) == state.view(0)
    assert state.seed == (0 if seed is None else seed)


# --- options ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("options", ["", [], [("cap", 2)], 0, 1, True, 1.5, b"x"])
def test_options_that_are_not_a_map(name, options):
    # Old code took "", [] and 0 as "no options" and a list of pairs as a map.
    refused(name, "options must be a map", options=options)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("options", [{1: 2}, {1: 2, "a": 3}, {None: 1}, {2.5: 1}, {True: 0}])
def test_option_names_that_are_not_text(name, options):
    refused(name, "option's name must be text", options=options)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("key", ["nope", "", "Deck", "x" * 500])
def test_unknown_option_names(name, key):
    err = refused(name, "has no option", options={key: 1})
    assert len(err.message) < 100


@pytest.mark.parametrize(
    ("name", "option", "value", "match"),
    [
        ("prophet", "deck", 36, "one of 32, 52"),
        ("prophet", "deck", "52", "one of 32, 52"),
        ("prophet", "deck", None, "one of 32, 52"),
        ("prophet", "deck", [52], "one of 32, 52"),
        ("prophet", "schedule", 1, "one of ascending"),
        ("prophet", "schedule", None, "one of ascending"),
        ("prophet", "schedule", ["fixed"], "one of ascending"),
        ("prophet", "schedule", "Fixed", "one of ascending"),
        ("prophet", "cap", 3.0, "whole number"),
        ("prophet", "cap", True, "whole number"),
        ("prophet", "cap", False, "whole number"),
        ("prophet", "cap", "3", "whole number"),
        ("prophet", "cap", None, "whole number"),
        ("prophet", "cap", float("inf"), "whole number"),
        ("prophet", "cap", -1, "at least 0"),
        ("prophet", "cap", 18, "at most 17"),
        ("prophet", "cap", 2**70, "at most 17"),
        ("fortunes", "betting", 1, "one of rubber, ante"),
        ("fortunes", "betting", None, "one of rubber, ante"),
        ("fortunes", "betting", "ANTE", "one of rubber, ante"),
        ("fortunes", "max_raises", 2.0, "whole number"),
        ("fortunes", "max_raises", True, "whole number"),
        ("fortunes", "max_raises", -1, "at least 0"),
        ("fortunes", "max_raises", 20, "at most 19"),
        ("fortunes", "target", 0, "at least 1"),
        ("fortunes", "target", 1001, "at most 1000"),
        ("fortunes", "target", 50.5, "whole number"),
        ("fortunes", "max_deals", 0, "at least 1"),
        ("fortunes", "max_deals", 51, "at most 50"),
        ("fortunes", "max_deals", False, "whole number"),
    ],
)
def test_option_values_are_checked_by_their_spec(name, option, value, match):
    refused(name, match, options={option: value})
    with pytest.raises(BadSetup, match=match):
        get_game(name).resolve_options(4, {option: value})


@pytest.mark.parametrize("name", GAMES)
def test_valid_options_resolve_as_before(name):
    game = get_game(name)
    defaults = {key: spec.default for key, spec in game.options.items()}
    assert game.resolve_options(4, None) == defaults
    assert game.resolve_options(4, {}) == defaults
    assert game.resolve_options(4, defaults) == defaults


def test_prophet_options_keep_their_exact_values():
    resolved = get_game("prophet").resolve_options(4, {"deck": 52, "cap": 17, "schedule": "fixed"})
    assert resolved == {"deck": 52, "schedule": "fixed", "cap": 17}
    assert type(resolved["deck"]) is int


# --- stacked deck -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("deck", ["AS", "", 5, 1.5, True, {"AS": 1}, {}, b"AS"])
def test_a_deck_that_is_not_a_list(name, deck):
    # Old code read a string as its letters and a map as its keys, and failed on an int.
    refused(name, "stacked deck must be a list of card codes", deck=deck)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("card", [None, 1, 1.5, True, b"AS", [], ["AS"], {"a": 1}, ("AS",)])
def test_a_card_that_is_not_text(name, card):
    refused(name, "card codes", deck=[card])


@pytest.mark.parametrize("name", GAMES)
def test_a_card_of_another_deck(name):
    refused(name, "not a card of this deck", deck=[FOREIGN[name]])
    refused(name, "not a card of this deck", deck=[""])
    refused(name, "not a card of this deck", deck=[full_deck(name)[0].lower()])


def test_a_card_of_the_other_prophet_deck():
    refused("prophet", "'2H' is not a card", deck=["2H"])  # no twos in the 32-card deck
    assert setup("prophet", options={"deck": 52}, deck=["2H"]).hands[1] == ["2H"]


@pytest.mark.parametrize("name", GAMES)
def test_a_repeated_card(name):
    cards = full_deck(name)
    refused(name, "twice", deck=[cards[0], cards[1], cards[0]])


@pytest.mark.parametrize("name", GAMES)
def test_a_deck_longer_than_the_game_deck(name):
    cards = full_deck(name)
    refused(name, f"at most {len(cards)} cards", deck=[*cards, cards[0]])
    refused(name, "at most", deck=["x"] * 10_000)


def test_prophets_gambit_takes_one_flat_list_of_common_and_high_codes():
    # A list of decks (common, high) is not a shape it takes.
    refused("prophets_gambit", "card codes", deck=[["S1", "S2"], ["HSE"]])
    state = setup("prophets_gambit", deck=["HSE", "S1", "HDA"], dealer=3)
    assert state.focus == "S1"
    assert state.high_deck[-2:] == ["HDA", "HSE"]


@pytest.mark.parametrize("name", GAMES)
def test_full_and_partial_stacks_still_deal(name):
    cards = full_deck(name)
    for stack in ([], cards[:3], cards, list(reversed(cards)), tuple(cards[:5])):
        state = setup(name, deck=stack, seed=5)
        assert state.params["deck"] == list(stack)
        assert isinstance(state.params["deck"], list)
        located = sorted(c for place in state.card_locations().values() for c in place)
        assert located == sorted(DECKS[get_game(name).deck_name(state.options)])


@pytest.mark.parametrize("name", GAMES)
def test_a_refused_deck_does_not_leak_the_value_into_the_message(name):
    err = refused(name, deck=["Z" * 1000])
    assert len(err.message) < 100


# --- replay -----------------------------------------------------------------------------------


def played(name: str):
    """A state a few steps in, and its game."""
    game = get_game(name)
    state = game.new_state(4, seed=3)
    for _ in range(3):
        seat = min(state.pending())
        state.apply(seat, state.legal_actions(seat)[0])
    return game, state


@pytest.mark.parametrize("name", GAMES)
def test_replay_refuses_malformed_params(name):
    game, state = played(name)
    for params in (None, [], "params", [["num_players", 4]]):
        with pytest.raises(BadSetup, match="parameters must be a map"):
            game.replay(params, state.history)
    for key in ("num_players", "options", "dealer", "seed", "deck"):
        params = {k: v for k, v in state.params.items() if k != key}
        with pytest.raises(BadSetup, match=f"lack '{key}'"):
            game.replay(params, state.history)
    other = next(g for g in GAMES if g != name)
    with pytest.raises(BadSetup, match="not for a game of"):
        game.replay({**state.params, "game": other}, state.history)
    for key, value in (("dealer", True), ("options", "cap"), ("deck", [["AS"]]), ("seed", 1.5)):
        with pytest.raises(BadSetup):
            game.replay({**state.params, key: value}, state.history)


@pytest.mark.parametrize("name", GAMES)
def test_replay_refuses_a_malformed_history(name):
    game, state = played(name)
    for history in (None, "history", 5, {"0": 1}):
        with pytest.raises(BadSetup, match="history must be a list"):
            game.replay(state.params, history)
    for step in ([], [0], [0, {}, 1], "ab", 5, None, {"seat": 0}):
        with pytest.raises(BadSetup, match=r"\[seat, action\]"):
            game.replay(state.params, [*state.history, step])
    # A well-formed step the rules refuse raises its own RulesError.
    with pytest.raises(MalformedAction):
        game.replay(state.params, [*state.history, [0, {"type": "nope"}]])
    assert game.replay(state.params, state.history).snapshot() == state.snapshot()


@pytest.mark.parametrize("name", GAMES)
def test_an_action_with_mixed_key_types_is_malformed(name):
    # Sorting the unknown field names of {"type": ..., 1: 2, "x": 3} raised a TypeError.
    state = setup(name)
    seat = min(state.pending())
    action = {**state.legal_actions(seat)[0].to_wire(), 1: 2, "x": 3}
    with pytest.raises(ProtocolError, match="Unexpected field '1'"):
        action_from_wire(action)
    with pytest.raises(MalformedAction, match="Unexpected field '1'"):  # a stored history
        state.game.replay(state.params, [[seat, action]])
    with pytest.raises(MalformedAction, match="no such seat"):
        state.apply(10**5000, state.legal_actions(seat)[0])


# --- anything at all --------------------------------------------------------------------------

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-1, max_value=8)
    | st.floats()
    | st.text(max_size=6)
    | st.just("\ud800")
    | st.binary(max_size=3)
)
#: Any value a msgpack decoder (or a careless caller) might hand over.
ANY = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=6) | st.integers() | st.none(), inner, max_size=4)
    ),
    max_leaves=10,
)
_NAMES = sorted({key for game in GAMES for key in get_game(game).options} | {"x"})
_VALUES = sorted(
    {v for n in GAMES for s in get_game(n).options.values() for v in s.choices or ()}, key=repr
)
_CARDS = sorted({code for deck in DECKS.values() for code in deck})

PLAYERS = st.just(4) | st.integers(min_value=2, max_value=7) | ANY
DEALERS = st.integers(min_value=0, max_value=3) | st.integers(min_value=-1, max_value=6) | ANY
SEEDS = st.none() | st.integers() | st.text(max_size=8) | ANY
OPTIONS = (
    st.none()
    | st.dictionaries(
        st.sampled_from(_NAMES),
        st.sampled_from(_VALUES) | st.integers(min_value=-2, max_value=60) | ANY,
        max_size=4,
    )
    | ANY
)


def decks(name: str) -> st.SearchStrategy[Any]:
    """Stacked decks for ``name``: often valid (a few cards, or all of them in any order),
    often nearly so (a card of another deck, a repeat), sometimes anything at all."""
    game = get_game(name)
    own = list(DECKS["french52" if name == "prophet" else game.deck])
    return (
        st.none()
        | st.lists(st.sampled_from(own), max_size=12, unique=True)
        | st.permutations(own)
        | st.lists(st.sampled_from(own), max_size=12)
        | st.lists(st.sampled_from(_CARDS) | ANY, max_size=6)
        | ANY
    )


DECKS_OF = {name: decks(name) for name in GAMES}


def works(state) -> None:
    """A state from ``new_state`` plays: it answers, serialises, replays and takes a move."""
    game = state.game
    data = state.snapshot()
    assert game.restore(data).snapshot() == data
    pending = state.pending()
    assert pending and not state.is_over
    seat = min(pending)
    legal = state.legal_actions(seat)
    assert legal
    for s in range(state.num_players):
        msgpack.packb(state.view(s))
    msgpack.packb(state.view(None))
    msgpack.packb(state.params)
    state.apply(seat, legal[0])
    assert game.replay(state.params, state.history).snapshot() == state.snapshot()


def works_or_refused(name: str, setup: dict[str, Any]) -> None:
    """The property: ``new_state`` deals a working game or raises BadSetup, nothing else."""
    try:
        state = get_game(name).new_state(**setup)
    except BadSetup as err:
        assert err.message
        msgpack.packb(err.to_wire())
        event("refused")
        return
    event("dealt")
    works(state)


@st.composite
def valid_setups(draw: st.DrawFn, name: str) -> dict[str, Any]:
    """Keyword arguments of ``new_state`` that every game must accept."""
    game = get_game(name)
    n = draw(st.integers(game.min_players, game.max_players))
    options: dict[str, Any] = {}
    for key, spec in game.options.items():
        if draw(st.booleans()):
            if spec.choices is not None:
                options[key] = draw(st.sampled_from(spec.choices))
            else:
                options[key] = draw(st.integers(spec.minimum, spec.maximum))
    cards = list(game.cards(game.resolve_options(n, options)))
    stack = st.lists(st.sampled_from(cards), max_size=12, unique=True) | st.permutations(cards)
    return {
        "num_players": n,
        "options": options,
        "dealer": draw(st.integers(0, n - 1)),
        "seed": draw(st.none() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=8)),
        "deck": draw(st.none() | stack),
    }


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=PLAYERS, dealer=DEALERS, options=OPTIONS, seed=SEEDS, data=st.data())
def test_new_state_works_or_raises_bad_setup(name, players, dealer, options, seed, data):
    deck = data.draw(DECKS_OF[name], label="deck")
    setup = {"num_players": players, "options": options, "dealer": dealer, "seed": seed}
    works_or_refused(name, {**setup, "deck": deck})


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_one_arbitrary_argument_works_or_raises_bad_setup(name, data):
    setup = data.draw(valid_setups(name), label="valid setup")
    key = data.draw(st.sampled_from(sorted(setup)), label="replaced")
    anything = {
        "num_players": PLAYERS,
        "options": OPTIONS,
        "dealer": DEALERS,
        "seed": SEEDS,
        "deck": DECKS_OF[name],
    }
    setup[key] = data.draw(anything[key], label=key)
    works_or_refused(name, setup)


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_valid_setup_still_deals(name, data):
    works(get_game(name).new_state(**data.draw(valid_setups(name), label="setup")))


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=PLAYERS, options=OPTIONS)
def test_resolve_options_resolves_or_raises_bad_setup(name, players, options):
    game = get_game(name)
    try:
        resolved = game.resolve_options(players, options)
    except BadSetup:
        return
    assert set(resolved) == set(game.options)
    assert game.resolve_options(players, resolved) == resolved


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_replay_works_or_raises_a_rules_error(name, data):
    game, state = played(name)
    params = data.draw(
        st.fixed_dictionaries({key: st.just(value) | ANY for key, value in state.params.items()})
        | ANY,
        label="params",
    )
    history = data.draw(
        st.just(state.history) | st.lists(st.tuples(DEALERS, ANY) | ANY, max_size=3) | ANY,
        label="history",
    )
    try:
        game.replay(params, history)
    except RulesError as err:
        msgpack.packb(err.to_wire())
