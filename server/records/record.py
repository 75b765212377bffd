"""A finished game as a self-contained, versioned record (``docs/records.md``).

The record holds what replays the game exactly (its creation parameters, with the seed that
is revealed once the game is over, and every action), what it came to, who sat where (names
only: never a key fingerprint) and the deal's commitment. The same dict is written as JSON by
``gambit export`` and read back by ``gambit replay FILE`` and ``gambit verify FILE``.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from server.engine import get_game

FORMAT = "gambit-record"
#: Version 2 adds players' entropy to ``deal`` (``commits``, ``left_out``); version 1 records
#: (no players' values) are read and verified as before.
VERSION = 2
READS = (1, 2)


class RecordError(Exception):
    """A record cannot be found or read; the message says why, for the command line."""


def plain(value: Any) -> Any:
    """``value`` as JSON would give it back (map keys as text, tuples as lists), so that a
    record read from a file compares equal to one built from the database."""
    return json.loads(json.dumps(value))


def from_game(row: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """The record of a stored game (``Store.game``); ``names`` maps player ids to names."""
    players: list[str | None] = row["players"]
    results = row.get("results") or {}
    seats = []
    for seat, pid in enumerate(players):
        result = results.get(seat) or {}
        seats.append(
            {
                "seat": seat,
                "name": names.get(pid, "?") if pid is not None else None,
                "bot": pid is None,
                "place": result.get("place"),
                "chips": result.get("chips"),
                "rating_change": result.get("rating_change"),
            }
        )
    finished = datetime.fromtimestamp(row["finished"], UTC).isoformat(timespec="seconds")
    return plain(
        {
            "format": FORMAT,
            "version": VERSION,
            "id": row["id"],
            "table": row["table_id"],
            "game": row["game"],
            "title": get_game(row["game"]).title,
            "finished": finished.replace("+00:00", "Z"),
            "seats": seats,
            "params": row["params"],
            "actions": row["history"],
            "outcome": row["outcome"],
            "deal": row.get("deal"),
            # Chips each seat put in the pot per unit of ``outcome.contributions`` (None:
            # recorded before stakes were kept).
            "stake": row.get("stake"),
        }
    )


def from_store(data_dir: str | Path | None, game_id: int) -> dict[str, Any]:
    """The record of game ``game_id`` in the data folder's database."""
    from server.store import Store, StoreError

    try:
        store = Store.open(data_dir)
    except (StoreError, OSError) as err:
        raise RecordError(f"cannot open the data folder: {err}") from None
    try:
        row = store.game(game_id)
        if row is None:
            raise RecordError(f"there is no finished game {game_id} in {store_path(data_dir)}")
        names = {}
        for pid in row["players"]:
            if pid is not None:
                names[pid] = (store.get_player(pid) or {}).get("name") or "?"
        return from_game(row, names)
    finally:
        store.close()


def store_path(data_dir: str | Path | None) -> str:
    from server.store import default_data_dir

    return str(Path(data_dir) if data_dir else default_data_dir())


def check(record: Any) -> dict[str, Any]:
    """``record`` if it has this format's shape, else RecordError naming what is wrong."""
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise RecordError(f'this is not a Gambit game record (no "format": "{FORMAT}")')
    if record.get("version") not in READS:
        raise RecordError(
            f"this record is version {record.get('version')!r}; this Gambit reads versions "
            f"{', '.join(map(str, READS))}"
        )
    for key, kind in (
        ("params", dict),
        ("actions", list),
        ("outcome", dict),
        ("seats", list),
        ("game", str),
    ):
        if not isinstance(record.get(key), kind):
            raise RecordError(f"the record's {key!r} is missing or malformed")
    return record


def dumps(record: dict[str, Any]) -> str:
    """The record as JSON text: keys in a stable order, one space-indented level per map."""
    return json.dumps(record, indent=1, ensure_ascii=False) + "\n"


def read_file(path: str | Path) -> dict[str, Any]:
    """A record written by ``gambit export``."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise RecordError(f"cannot read {path}: {err.strerror or err}") from None
    try:
        data = json.loads(text)
        if isinstance(data, dict) and data.get("format") == "gambit-event":
            return data  # a whole event (event_record.py), checked as such
        return check(data)
    except json.JSONDecodeError as err:
        raise RecordError(f"{path} is not JSON: {err}") from None


def load(ref: str, data_dir: str | Path | None) -> dict[str, Any]:
    """A record by game id (from the data folder) or by file name."""
    if ref.isdigit() and not Path(ref).exists():
        return from_store(data_dir, int(ref))
    return read_file(ref)
