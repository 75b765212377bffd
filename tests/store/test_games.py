"""Finished games and live tables, with real engine games: what is stored replays exactly."""

from __future__ import annotations

import random

import pytest

from server.engine import get_game
from server.store import Store, StoreError
from tests.engine.play import play_out, random_step

GAMES = [("prophets_gambit", 4), ("prophet", 4), ("fortunes", 4)]


@pytest.mark.parametrize(("name", "players"), GAMES)
def test_recorded_game_replays_to_the_same_outcome(store: Store, reopen, name, players):
    game = get_game(name)
    state = game.new_state(players, seed=11)
    play_out(state, random.Random(11))
    seats = ["alice", None, "bob", "carol"]
    game_id = store.record_game(3, state.params, state.history, state.outcome().to_wire(), seats)
    again = reopen()
    try:
        rec = again.game(game_id)
        assert rec["id"] == game_id and rec["table_id"] == 3 and rec["game"] == name
        assert rec["players"] == seats
        assert rec["outcome"] == state.outcome().to_wire()
        replayed = game.replay(rec["params"], rec["history"])
        assert replayed.snapshot() == state.snapshot()
    finally:
        again.close()


def test_games_of_is_newest_first_with_the_seat(store: Store):
    ids = [
        store.record_game(1, {"game": "prophet", "seed": i}, [[0, {"type": "x"}]], {"n": i}, p)
        for i, p in enumerate([["a", "b", None], [None, "a", "c"], ["b", "c", None]])
    ]
    mine = store.games_of("a", 10)
    assert [(g["id"], g["seat"]) for g in mine] == [(ids[1], 1), (ids[0], 0)]
    assert mine[0]["params"] == {"game": "prophet", "seed": 1}
    assert mine[0]["history"] == [[0, {"type": "x"}]]
    assert [g["id"] for g in store.games_of("c", 1)] == [ids[2]]
    assert store.games_of("nobody", 10) == []
    assert store.game(999) is None


def test_table_ids_are_monotonic_across_restarts(store: Store, reopen):
    assert [store.next_table_id() for _ in range(3)] == [1, 2, 3]
    store.save_table(3, {})
    store.delete_table(3)
    again = reopen()
    try:
        assert again.next_table_id() == 4
    finally:
        again.close()


def test_live_table_restores_a_game_mid_play(store: Store, reopen):
    game = get_game("prophets_gambit")
    rng = random.Random(5)
    table = store.next_table_id()
    store.save_table(table, {"stake": 10, "seats": ["a", "b", None, None]})
    assert store.live_tables() == [
        {
            "id": table,
            "info": {"stake": 10, "seats": ["a", "b", None, None]},
            "params": None,
            "actions": [],
        }
    ]
    # A first game, finished and recorded, then a second game interrupted mid-way.
    state = game.new_state(4, seed=1)
    store.start_game(table, state.params)
    while not state.is_over:
        seat, action = random_step(state, rng)
        assert store.append_action(table, seat, action.to_wire()) == len(state.history) - 1
    with store.transaction():
        store.record_game(table, state.params, state.history, state.outcome().to_wire(), [])
        state = game.new_state(4, dealer=1, seed=2)
        store.start_game(table, state.params)
    for _ in range(7):
        seat, action = random_step(state, rng)
        store.append_action(table, seat, action.to_wire())
    store.save_table(table, {"stake": 10, "seats": ["a", "b", "c", None]})

    again = reopen()
    try:
        (live,) = again.live_tables()
        assert live["info"] == {"stake": 10, "seats": ["a", "b", "c", None]}
        assert live["actions"] == state.history  # only the current game's actions
        restored = game.replay(live["params"], live["actions"])
        assert restored.snapshot() == state.snapshot()
        again.delete_table(table)
        assert again.live_tables() == []
        assert again._conn.execute("SELECT COUNT(*) FROM live_actions").fetchone()[0] == 0
    finally:
        again.close()


def test_several_tables_keep_their_own_actions(store: Store):
    for t in (1, 2):
        store.save_table(t, {"t": t})
        store.start_game(t, {"game": "prophet", "seed": t})
    assert store.append_action(1, 0, {"type": "a"}) == 0
    assert store.append_action(2, 1, {"type": "b"}) == 0
    assert store.append_action(1, 2, {"type": "c"}) == 1
    tables = {t["id"]: t["actions"] for t in store.live_tables()}
    assert tables == {1: [[0, {"type": "a"}], [2, {"type": "c"}]], 2: [[1, {"type": "b"}]]}


def test_an_action_stored_at_the_index_its_caller_knows(store: Store):
    """The hub gives each action's index (its game's history length): the store need not
    look for the last one, and refuses an index already taken, keeping what was stored."""
    store.save_table(1, {})
    store.start_game(1, {"game": "prophet"})
    assert store.append_action(1, 0, {"type": "a"}, 0) == 0
    assert store.append_action(1, 1, {"type": "b"}, 1) == 1
    with pytest.raises(StoreError):
        store.append_action(1, 2, {"type": "c"}, 1)
    assert store.append_action(1, 2, {"type": "c"}) == 2  # (and without: after the last)
    assert store.live_tables()[0]["actions"] == [
        [0, {"type": "a"}],
        [1, {"type": "b"}],
        [2, {"type": "c"}],
    ]
    store.start_game(1, {"game": "prophet"})  # a new game starts again from 0
    assert store.append_action(1, 0, {"type": "d"}, 0) == 0
    with pytest.raises(StoreError, match="no game"):
        store.save_table(2, {})
        store.append_action(2, 0, {"type": "x"}, 0)


def test_actions_need_a_saved_table_with_a_game(store: Store):
    with pytest.raises(StoreError, match="No live table"):
        store.append_action(1, 0, {"type": "x"})
    with pytest.raises(StoreError, match="save_table"):
        store.start_game(1, {"game": "prophet"})
    store.save_table(1, {})
    with pytest.raises(StoreError, match="no game"):
        store.append_action(1, 0, {"type": "x"})
