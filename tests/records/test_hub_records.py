"""A real hub game, start to finish: its commitment shows at the table before the deal, the
record reveals the seed, and ``gambit verify`` / ``export`` / ``replay`` work on it."""

from __future__ import annotations

import json

from server.cli import main
from server.engine import fairness
from server.hub import Hub
from tests.hub.conftest import fast_config
from tests.hub.harness import connect, play_to_end


async def play_one_game(store, **config) -> tuple[int, list[dict]]:
    """Ada plays one Prophet game against two bots; the game's id and Ada's table messages."""
    hub = Hub(store, fast_config(**config))
    await hub.start()
    try:
        ada = await connect(hub)
        await ada.hello("Ada", identity="SHA256:ada")
        await ada.send("create_table", game="prophet", players=3, options={"cap": 1}, stake=10)
        table = (await ada.expect("table"))["table"]
        for seat in (1, 2):
            await ada.send("add_bot", table=table, seat=seat)
        await ada.until(
            lambda m: m["t"] == "table" and all(s["bot"] or s["name"] for s in m["info"]["seats"])
        )
        await ada.send("start", table=table)
        await play_to_end({0: ada}, table)
        await ada.close()
    finally:
        await hub.stop()
    (game,) = store.games_of("SHA256:ada", 5)
    return game["id"], [m for m in ada.log if m["t"] == "table"]


async def test_commitment_before_the_deal_seed_after_and_verify_passes(store, tmp_path, capsys):
    game_id, messages = await play_one_game(store)
    before = messages[0]["info"]["deal"]  # the table, just created: nothing dealt yet
    assert messages[0]["view"] is None
    assert before["algorithm"] == fairness.ALGORITHM and before["fair"] is True
    record = store.game(game_id)
    deal = record["deal"]
    # The commitment shown before the deal is SHA-256 of the seed the record reveals, and
    # the seed was never sent to the table while the game ran.
    assert deal["commitment"] == before["commitment"] == fairness.commitment(deal["hub_seed"])
    assert record["params"]["seed"] == deal["hub_seed"] and len(deal["hub_seed"]) == 64
    assert not any(deal["hub_seed"] in json.dumps(m) for m in messages)
    # Between games the table already shows the next game's (different) commitment.
    assert messages[-1]["info"]["deal"]["commitment"] != deal["commitment"]
    assert record["results"][0]["place"] in (1, 2, 3)
    assert record["results"][0]["chips"] is not None

    data = str(tmp_path / "data")
    assert main(["verify", str(game_id), "--data-dir", data]) == 0
    out = capsys.readouterr().out
    assert "PASS" in out and "FAILED" not in out

    # export → file → replay FILE and verify FILE read it back.
    path = tmp_path / "game.json"
    assert main(["export", str(game_id), "-o", str(path), "--data-dir", data]) == 0
    exported = json.loads(path.read_text(encoding="utf-8"))
    assert exported["format"] == "gambit-record" and exported["version"] == 2
    assert exported["seats"][0]["name"] == "Ada" and exported["seats"][1]["bot"] is True
    assert "SHA256:ada" not in path.read_text(encoding="utf-8")  # names only, no key
    capsys.readouterr()
    assert main(["replay", str(path), "--text"]) == 0
    frames = capsys.readouterr().out
    moves = len(exported["actions"])
    assert f"--- {moves}/{moves} ---" in frames and "Result: 1. " in frames
    assert main(["replay", str(game_id), "--text", "--data-dir", data]) == 0
    assert capsys.readouterr().out == frames  # the file replays exactly as the database

    # One dealt card changed in the file: verify fails, plainly, with exit status 1.
    hands = exported["deal"]["dealt"][0]
    hands["hand:0"][0], hands["hand:1"][0] = hands["hand:1"][0], hands["hand:0"][0]
    path.write_text(json.dumps(exported), encoding="utf-8")
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert "FAIL: " in out and "Deal 1 differs" in out


async def test_a_fixed_seed_game_is_marked_not_fair(store, tmp_path, capsys):
    game_id, messages = await play_one_game(store, seed=7)
    assert messages[0]["info"]["deal"]["fair"] is False
    assert store.game(game_id)["deal"]["fair"] is False
    assert main(["verify", str(game_id), "--data-dir", str(tmp_path / "data")]) == 3
    assert "NOT FAIR" in capsys.readouterr().out


def test_verify_of_a_missing_game_says_so(store, tmp_path, capsys):
    assert main(["verify", "999", "--data-dir", str(tmp_path / "data")]) == 2
    assert "no finished game 999" in capsys.readouterr().err
