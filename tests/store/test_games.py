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


def held_store(folder) -> Store:
    """A file-backed store holding commits as the hub's does (a batch per turn)."""
    store = Store.open(folder)
    store.hold_commits(lambda: None)
    for t in (1, 2):
        store.save_table(t, {"t": t})
        store.start_game(t, {"game": "prophet", "seed": t})
    store.commit_held()
    return store


def test_a_batchs_actions_are_stored_by_one_statement_at_its_commit(tmp_path):
    """The hub stores an action at every move, on its event loop: a held batch's actions
    wait in memory and are inserted together as the batch commits, a batch of nothing else
    by one statement, its own commit (no BEGIN, no COMMIT); another connection sees them
    all then, in order, and none before."""
    store = held_store(tmp_path)
    statements: list[str] = []
    store._conn.set_trace_callback(statements.append)
    for n in range(16):
        assert store.append_action(1 + n % 2, n % 4, {"type": "play", "n": n}, n // 2) == n // 2
    inserts = [sql for sql in statements if sql.startswith("INSERT INTO live_actions")]
    assert inserts == [] and store.holding
    other = Store.open(tmp_path)
    assert [t["actions"] for t in other.live_tables()] == [[], []]
    commits = store.commits
    store.commit_held()
    assert len(statements) == 1 and statements[0].startswith("INSERT INTO live_actions")
    assert store.commits == commits + 1 and not store._conn.in_transaction
    assert {t["id"]: t["actions"] for t in other.live_tables()} == {
        t: [[n % 4, {"type": "play", "n": n}] for n in range(16) if 1 + n % 2 == t] for t in (1, 2)
    }
    other.close()
    store.close()


def test_a_batch_of_more_actions_than_one_statement_takes_commits_them_at_once(tmp_path):
    store = held_store(tmp_path)
    statements: list[str] = []
    store._conn.set_trace_callback(statements.append)
    for n in range(100):
        store.append_action(1, n % 4, {"type": "play", "n": n}, n)
    store.commit_held()
    inserts = [sql for sql in statements if sql.startswith("INSERT INTO live_actions")]
    assert statements[0] == "BEGIN IMMEDIATE" and statements[-1] == "COMMIT"
    assert len(inserts) == 2  # (64 and 36, in a statement made for 64)
    other = Store.open(tmp_path)
    assert other.live_tables()[0]["actions"] == [
        [n % 4, {"type": "play", "n": n}] for n in range(100)
    ]
    other.close()
    store.close()


def test_held_actions_keep_their_place_among_the_batchs_writes(tmp_path):
    """What the batch writes after an action (a new game, which forgets the last one's
    actions; a closed table) comes after it, as it did when each action was inserted at
    once; a read of the live tables sees the held actions."""
    store = held_store(tmp_path)
    store.append_action(1, 0, {"type": "old"}, 0)
    store.start_game(1, {"game": "prophet", "seed": 9})
    store.append_action(1, 1, {"type": "new"}, 0)
    store.append_action(2, 2, {"type": "gone"}, 0)
    store.delete_table(2)
    assert [(t["id"], t["actions"]) for t in store.live_tables()] == [(1, [[1, {"type": "new"}]])]
    store.commit_held()
    other = Store.open(tmp_path)
    assert [(t["id"], t["actions"]) for t in other.live_tables()] == [(1, [[1, {"type": "new"}]])]
    other.close()
    store.close()


@pytest.mark.parametrize("alone", [True, False], ids=["actions alone", "with other writes"])
def test_a_held_action_that_cannot_be_stored_loses_its_whole_batch(tmp_path, alone):
    """An action is stored only at its batch's commit: if it cannot be (its table has no
    game here), the commit is refused and nothing of the batch is kept, the other actions
    and writes included: the hub, which shows nothing of a batch before its commit, shows
    none of it."""
    store = held_store(tmp_path)
    if not alone:
        store.ensure_player("ada", starting_chips=10)
    store.append_action(1, 0, {"type": "a"}, 0)
    store._conn.execute("UPDATE live_tables SET params = NULL WHERE id = 2")  # (the fault)
    store.append_action(2, 0, {"type": "b"}, 0)
    with pytest.raises(StoreError, match="cannot all be stored"):
        store.commit_held()
    assert not store.holding and not store._conn.in_transaction
    other = Store.open(tmp_path)
    assert other.get_player("ada") is None
    assert [t["actions"] for t in other.live_tables()] == [[], []]
    other.close()
    store.close()
