"""Players' entropy: each seated app commits, then reveals, and the deal's seed mixes the values
in; a player who never reveals is left out after a short wait, a tampered reveal is refused,
and ``gambit verify`` checks every value against its commitment."""

from __future__ import annotations

import copy
import hashlib
import secrets

from server.cli import main
from server.engine import fairness
from server.hub import Hub
from server.records.record import dumps, from_game, from_store
from server.records.verify import FAIL, PASS, verify
from tests.hub.conftest import fast_config
from tests.hub.harness import connect, play_to_end
from tests.records.make import make_record


def sha(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


async def two_players_and_a_bot(hub: Hub):
    """Ada's Prophet table with Bob beside her and a bot: the table message with the deal."""
    ada, bob = await connect(hub), await connect(hub)
    await ada.hello("Ada", identity="SHA256:ada")
    await bob.hello("Bob", identity="SHA256:bob")
    await ada.send("create_table", game="prophet", players=3, options={"cap": 1})
    table = (await ada.expect("table"))["table"]
    await bob.send("join", table=table, seat=1)
    await ada.send("add_bot", table=table, seat=2)
    msg = await ada.until(
        lambda m: m["t"] == "table" and all(s["bot"] or s["name"] for s in m["info"]["seats"])
    )
    return ada, bob, table, msg["info"]["deal"]


async def commit(client, table: int, deal: dict, value: str) -> None:
    await client.send("entropy", table=table, deal=deal["commitment"], commit=sha(value))


async def test_values_are_committed_revealed_and_mixed_into_the_seed(store, tmp_path, capsys):
    hub = Hub(store, fast_config(entropy_wait=60.0))  # never reached: both reveal
    await hub.start()
    try:
        ada, bob, table, deal = await two_players_and_a_bot(hub)
        assert deal["phase"] == "commit" and deal["committed"] == []
        a, b = secrets.token_hex(32), secrets.token_hex(32)
        await commit(ada, table, deal, a)
        seen = await ada.until(lambda m: m["t"] == "table" and m["info"]["deal"]["committed"])
        assert seen["info"]["deal"]["phase"] == "commit"  # Bob has not committed yet
        # A reveal before every player has committed is refused.
        await ada.send("entropy", table=table, deal=deal["commitment"], reveal=a)
        assert (await ada.expect("error", ref="entropy"))["code"] == "entropy_early"
        await commit(bob, table, deal, b)
        opened = await ada.until(
            lambda m: m["t"] == "table" and m["info"]["deal"]["phase"] == "reveal"
        )
        assert sorted(opened["info"]["deal"]["committed"]) == [0, 1]
        for client, value in ((ada, a), (bob, b)):
            await client.send("entropy", table=table, deal=deal["commitment"], reveal=value)
        await ada.until(lambda m: m["t"] == "table" and len(m["info"]["deal"]["revealed"]) == 2)
        await ada.send("start", table=table)
        await ada.until(lambda m: m["t"] == "table" and m["view"] is not None, timeout=5)
        hub_seed = hub.tables[table].deal["hub_seed"]
        assert hub.tables[table].state.params["seed"] == fairness.mix(hub_seed, [(0, a), (1, b)])
        assert hub.tables[table].deal["left_out"] == []
        await play_to_end({0: ada, 1: bob}, table)
        await ada.close()
        await bob.close()
    finally:
        await hub.stop()
    (game,) = store.games_of("SHA256:ada", 5)
    record = from_store(tmp_path / "data", game["id"])
    assert record["version"] == 2 and record["deal"]["entropy"] == "hub+players"
    assert sorted(map(tuple, record["deal"]["contributions"])) == [(0, a), (1, b)]
    report = verify(record)
    assert report.verdict == PASS, report.lines()
    assert any("values match the commitments" in line for line in report.lines())
    assert main(["verify", str(game["id"]), "--data-dir", str(tmp_path / "data")]) == 0
    assert "PASS" in capsys.readouterr().out
    # One changed value: the commitment check and the seed both fail, plainly.
    changed = copy.deepcopy(record)
    changed["deal"]["contributions"][0][1] = secrets.token_hex(32)
    report = verify(changed)
    assert report.verdict == FAIL
    text = "\n".join(report.lines())
    assert "value does not match the commitment its app sent" in text
    assert "The game's seed is not the one" in text
    path = tmp_path / "changed.json"
    path.write_text(dumps(changed), encoding="utf-8")
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert "FAIL: " in out and "value does not match the commitment" in out
    # A version 1 record (written before players' entropy: no commits, no left_out) still
    # reads and verifies.
    old = make_record()
    old["version"] = 1
    for key in ("commits", "left_out"):
        del old["deal"][key]
    path.write_text(dumps(old), encoding="utf-8")
    assert main(["verify", str(path)]) == 0
    assert "PASS" in capsys.readouterr().out


async def test_a_player_who_never_reveals_is_left_out_after_a_short_wait(store):
    hub = Hub(store, fast_config(entropy_wait=0.3))
    await hub.start()
    try:
        ada, bob, table, deal = await two_players_and_a_bot(hub)
        a, b = secrets.token_hex(32), secrets.token_hex(32)
        await commit(ada, table, deal, a)
        await commit(bob, table, deal, b)
        await ada.until(lambda m: m["t"] == "table" and m["info"]["deal"]["phase"] == "reveal")
        await ada.send("entropy", table=table, deal=deal["commitment"], reveal=a)
        await ada.until(lambda m: m["t"] == "table" and m["info"]["deal"]["revealed"] == [0])
        await ada.send("start", table=table)  # Bob's app never reveals
        await ada.until(lambda m: m["t"] == "table" and m["view"] is not None, timeout=5)
        dealt = hub.tables[table].deal
        assert dealt["left_out"] == [1] and dealt["contributions"] == [[0, a]]
        assert hub.tables[table].state.params["seed"] == fairness.mix(dealt["hub_seed"], [(0, a)])
        # Too late now: the deal is dealt.
        await bob.send("entropy", table=table, deal=deal["commitment"], reveal=b)
        assert (await bob.expect("error", ref="entropy"))["code"] == "entropy_stale"
        await play_to_end({0: ada, 1: bob}, table)
    finally:
        await hub.stop()
    (game,) = store.games_of("SHA256:ada", 5)
    row = store.game(game["id"])
    assert row["deal"]["left_out"] == [1]
    record = from_game(row, {"SHA256:ada": "Ada", "SHA256:bob": "Bob"})
    report = verify(record)
    assert report.verdict == PASS, report.lines()
    assert any("Left out of the seed" in line and "seat 1" in line for line in report.lines())


async def test_a_tampered_reveal_is_refused_with_a_clear_error(store):
    hub = Hub(store, fast_config(entropy_wait=0.3))
    await hub.start()
    try:
        ada, bob, table, deal = await two_players_and_a_bot(hub)
        a = secrets.token_hex(32)
        await commit(ada, table, deal, a)
        await commit(bob, table, deal, secrets.token_hex(32))
        await ada.until(lambda m: m["t"] == "table" and m["info"]["deal"]["phase"] == "reveal")
        await ada.send("entropy", table=table, deal=deal["commitment"], reveal="0" * 64)
        err = await ada.expect("error", ref="entropy")
        assert err["code"] == "entropy_mismatch"
        assert "does not match your commitment" in err["message"]
        assert hub.tables[table].deal["contributions"] == []  # nothing changed
        await commit(ada, table, deal, a)  # nor can she commit again
        assert (await ada.expect("error", ref="entropy"))["code"] == "entropy_late"
        await ada.send("entropy", table=table, deal=deal["commitment"], reveal="xyz")
        assert (await ada.expect("error", ref="entropy"))["code"] == "invalid"
    finally:
        await hub.stop()


async def test_a_leaver_s_commitment_goes_with_them_and_is_never_waited_for(store):
    hub = Hub(store, fast_config(entropy_wait=60.0))  # a wait would time the test out
    await hub.start()
    try:
        ada, bob, table, deal = await two_players_and_a_bot(hub)
        await commit(bob, table, deal, secrets.token_hex(32))
        await ada.until(lambda m: m["t"] == "table" and m["info"]["deal"]["committed"] == [1])
        await bob.send("leave", table=table)
        seen = await ada.until(
            lambda m: m["t"] == "table" and m["info"]["seats"][1]["name"] is None
        )
        assert seen["info"]["deal"]["committed"] == []  # Bob's went with him
        await ada.send("add_bot", table=table, seat=1)
        await ada.until(lambda m: m["t"] == "table" and m["info"]["seats"][1]["bot"])
        a = secrets.token_hex(32)
        await commit(ada, table, deal, a)
        # Every seated player has committed at a full table: reveals open at once.
        await ada.until(lambda m: m["t"] == "table" and m["info"]["deal"]["phase"] == "reveal")
        await ada.send("entropy", table=table, deal=deal["commitment"], reveal=a)
        await ada.until(lambda m: m["t"] == "table" and m["info"]["deal"]["revealed"] == [0])
        await ada.send("start", table=table)
        await ada.until(lambda m: m["t"] == "table" and m["view"] is not None, timeout=5)
        assert hub.tables[table].deal["contributions"] == [[0, a]]
        assert "by" not in str(hub.tables[table].deal.get("left_out"))
    finally:
        await hub.stop()
