"""``gambit export --event`` writes a whole game night (pairings, seats, byes, scores, every
game) and ``gambit verify`` checks every deal in it; a tampered game fails the event."""

from __future__ import annotations

import json
from pathlib import Path

from server.cli import main
from server.hub import Hub
from server.store import Store

from .conftest import fast_config
from .test_nights import _night, _play_round, _players, _register


async def _played_event(folder: Path) -> int:
    store = Store.open(folder)
    hub = Hub(store, fast_config())
    await hub.start()
    hub.nights.round_break = 0.05
    clients = await _players(hub, 6)
    night = await _night(clients[0], format="swiss", rounds=2)
    await _register(clients, night)
    await clients[0].send("night", op="start", night=night)
    for number in (1, 2):
        await _play_round(hub, clients, night, number)
    await clients[0].until(lambda m: m["t"] == "night" and m["night"]["status"] == "finished")
    await hub.stop()
    store.close()
    return night


async def test_an_exported_event_holds_every_round_and_game_and_verifies(tmp_path, capsys):
    data = tmp_path / "data"
    night = await _played_event(data)
    out = tmp_path / "event.json"
    assert main(["export", "--event", str(night), "--data-dir", str(data), "-o", str(out)]) == 0
    record = json.loads(out.read_text())
    assert record["format"] == "gambit-event" and record["status"] == "finished"
    assert sorted(record["players"]) == [f"P{i}" for i in range(6)]
    assert "key-0" not in out.read_text()  # names only, never a key
    tables = [t for r in record["rounds"] for t in r["tables"]]
    assert len(record["rounds"]) == 2 and len(tables) == 4
    games = {g["id"]: g for g in record["games"]}
    for table in tables:
        game = games[table["game"]]
        assert [s["name"] for s in game["seats"]] == table["seats"]
        assert game["table"] == table["table"]
    capsys.readouterr()
    assert main(["verify", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "PASS: every deal of the event checks out."
    assert sum(": pass" in line for line in lines) == 4
    assert main(["verify", "--event", str(night), "--data-dir", str(data)]) == 0

    # One card of one game changed: that game, and so the event, fails.
    tampered = json.loads(out.read_text())
    game = tampered["games"][0]
    game["actions"] = game["actions"][:-1]
    out.write_text(json.dumps(tampered))
    capsys.readouterr()
    assert main(["verify", str(out)]) == 1
    assert capsys.readouterr().out.splitlines()[-1].startswith("FAIL")


def test_export_of_an_unknown_event_says_so(tmp_path, capsys):
    Store.open(tmp_path / "data").close()
    assert main(["export", "--event", "9", "--data-dir", str(tmp_path / "data")]) == 1
    assert "there is no event 9" in capsys.readouterr().err
