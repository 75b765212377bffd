"""Schema v5: what a finished game did for each player, its deal, and histories by game."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import msgpack

from server.records.record import from_game
from server.records.verify import UNVERIFIABLE, verify
from server.store import DB_NAME, Store, schema


def test_a_v4_file_keeps_its_games_which_verify_calls_unverifiable(tmp_path: Path):
    conn = sqlite3.connect(tmp_path / DB_NAME, isolation_level=None)
    assert schema.migrate(conn, target=4) == 4
    pack = msgpack.packb
    conn.execute(
        "INSERT INTO games (table_id, game, params, history, outcome, players, finished) "
        "VALUES (1, 'prophet', ?, ?, ?, ?, 100.0)",
        (pack({"game": "prophet", "seed": 3}), pack([]), pack({"ranking": []}), pack(["a"])),
    )
    conn.execute("INSERT INTO game_players (game_id, seat, player_id) VALUES (1, 0, 'a')")
    conn.close()
    with Store.open(tmp_path) as store:
        game = store.game(1)
        assert game["deal"] is None and game["params"] == {"game": "prophet", "seed": 3}
        assert game["results"] == {0: {"place": None, "chips": None, "rating_change": None}}
        assert store.games_of("a")[0]["place"] is None
        assert verify(from_game(game, {"a": "Ada"})).verdict == UNVERIFIABLE


def test_history_is_newest_first_paged_and_filtered_by_game(store: Store):
    def record(game: str, players: list, place: int) -> int:
        return store.record_game(
            1,
            {"game": game},
            [],
            {},
            players,
            deal={"commitment": "c"},
            results=[{"place": place, "chips": 10 * place, "rating_change": -place}] * 3,
        )

    ids = [
        record("prophet", ["a", None, "b"], 1),
        record("fortunes", ["b", "a", None, None], 2),
        record("prophet", ["a", "c", None], 3),
    ]
    mine = store.games_of("a", 10)
    assert [(g["id"], g["place"], g["chips"], g["rating_change"]) for g in mine] == [
        (ids[2], 3, 30, -3),
        (ids[1], 2, 20, -2),
        (ids[0], 1, 10, -1),
    ]
    assert [g["id"] for g in store.games_of("a", 1, offset=1)] == [ids[1]]
    assert [g["id"] for g in store.games_of("a", 10, game="prophet")] == [ids[2], ids[0]]
    assert store.count_games_of("a") == 3 and store.count_games_of("a", "fortunes") == 1
    assert store.game_counts("prophet") == {"a": 2, "b": 1, "c": 1}
    assert store.game(ids[0])["deal"] == {"commitment": "c"}


def test_a_players_stats_count_games_first_places_and_the_best_win(store: Store):
    def record(game: str, players: list, places: list[int], chips: list[int]) -> None:
        results = [
            {"place": p, "chips": c, "rating_change": 0} for p, c in zip(places, chips, strict=True)
        ]
        store.record_game(1, {"game": game}, [], {}, players, deal=None, results=results)

    record("prophet", ["a", "b", None], [1, 2, 3], [30, -10, -20])
    record("prophet", ["b", "a", None], [1, 3, 2], [25, -15, -10])
    record("fortunes", ["a", "b", None, None], [2, 1, 1, 2], [-5, 5, 5, -5])
    assert store.player_stats("a") == {
        "prophet": {"games": 2, "wins": 1, "best_chips": 30},
        "fortunes": {"games": 1, "wins": 0, "best_chips": -5},
    }
    assert store.player_stats("nobody") == {}
