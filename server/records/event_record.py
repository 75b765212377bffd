"""A whole game night as one record: its rules, every round's pairings, seats, byes and scores,
and the record of every game its tables played (``record.py``'s format, one per table).

Written by ``gambit export --event ID`` and checked by ``gambit verify``: each game's deal is
verified as a single game's is, and every table of every round must have its game in the
record with the scores the event counted. Players appear by name only, never by key.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .record import RecordError, check, from_game, plain, store_path
from .verify import EXIT_CODES, FAIL, PASS, verify

FORMAT = "gambit-event"
VERSION = 1


def event_from_store(data_dir: str | Path | None, night_id: int) -> dict[str, Any]:
    """The record of event ``night_id`` and its games, from the data folder's database."""
    from server.store import Store, StoreError

    try:
        store = Store.open(data_dir)
    except (StoreError, OSError) as err:
        raise RecordError(f"cannot open the data folder: {err}") from None
    try:
        night = next((n for n in store.nights() if n["id"] == night_id), None)
        if night is None:
            raise RecordError(f"there is no event {night_id} in {store_path(data_dir)}")
        people = {night["host"], *(pid for pid, _, _ in night["entrants"])}
        names = {pid: (store.get_player(pid) or {}).get("name") or "?" for pid in people}
        table_ids = {t for r in night["rounds"] for t in r["table_ids"] if t is not None}
        game_ids: dict[int, int] = {}  # table → its game (an event's table plays one)
        for pid in people:
            for row in store.games_of(pid, 100_000):
                if row["table_id"] in table_ids:
                    game_ids.setdefault(row["table_id"], row["id"])
        games = []
        for game_id in sorted(set(game_ids.values())):
            game = store.game(game_id)
            if game is not None:
                games.append(from_game(game, names))
        return event_record(night, names, game_ids, games)
    finally:
        store.close()


def event_record(
    night: dict[str, Any],
    names: dict[str, str],
    game_ids: dict[int, int],
    games: list[dict[str, Any]],
) -> dict[str, Any]:
    """The record of a stored event (``Night.to_record``), its players' names, each table's
    game id and the games' records."""

    def name(pid: str | None) -> str | None:
        return None if pid is None else names.get(pid, "?")

    rounds = []
    for rnd in night["rounds"]:
        tables = []
        for index, seats in enumerate(rnd["tables"]):
            table_id = rnd["table_ids"][index]
            tables.append(
                {
                    "table": table_id,
                    "seats": [name(p) for p in seats],
                    "scores": rnd["scores"][index],
                    "game": game_ids.get(table_id) if table_id is not None else None,
                }
            )
        rounds.append(
            {"number": rnd["number"], "tables": tables, "byes": [name(p) for p in rnd["byes"]]}
        )
    return plain(
        {
            "format": FORMAT,
            "version": VERSION,
            "id": night["id"],
            "rules": night["rules"],
            "host": name(night["host"]),
            "status": night["status"],
            "players": [name(pid) for pid, _, _ in night["entrants"]],
            "rounds": rounds,
            "games": games,
        }
    )


def is_event(record: Any) -> bool:
    return isinstance(record, dict) and record.get("format") == FORMAT


def verify_event(record: dict[str, Any]) -> tuple[list[str], int]:
    """Every game's deal checked, and every table matched to its game: the lines to print and
    the exit status (0 only if every game passes and every table's game is there)."""
    if record.get("version") != VERSION or not isinstance(record.get("rounds"), list):
        raise RecordError(f"this event record is not version {VERSION} of {FORMAT}")
    games = {g.get("id"): check(g) for g in record.get("games", [])}
    lines = [f"Event {record.get('id', '?')} ({record['rules'].get('name', '?')}):"]
    worst = PASS
    for rnd in record["rounds"]:
        for table in rnd["tables"]:
            where = f"round {rnd['number']} table {table['table']}"
            game = games.get(table.get("game"))
            if game is None:
                if table.get("scores") is not None:  # (a table lost without a game: a draw)
                    lines.append(f"  {where}: no game recorded (counted as a draw)")
                continue
            verdict = verify(game).verdict
            seats = [s.get("name") for s in game["seats"]]
            if seats != table["seats"]:
                verdict = FAIL
                lines.append(f"  {where}: the game's seats are not the event's")
            lines.append(f"  {where}: game {game['id']}: {verdict}")
            if EXIT_CODES[verdict] and (worst == PASS or verdict == FAIL):
                worst = verdict
    lines.append(
        "PASS: every deal of the event checks out."
        if worst == PASS
        else f"{worst.upper()}: not every deal of the event checks out (see above)."
    )
    return lines, EXIT_CODES[worst]
