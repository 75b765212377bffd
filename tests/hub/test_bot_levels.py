"""A bot's level: chosen with ``add_bot``, changed by ``add_bot`` on the bot's own seat."""

from __future__ import annotations

from .harness import connect


async def test_a_bots_level_is_set_and_changed_before_the_start(hub):
    ada = await connect(hub)
    await ada.hello("Ada", identity="key-ada")
    await ada.send("create_table", game="prophet", players=3)
    table = (await ada.expect("table"))["table"]

    def level(seat):
        return lambda m: m["t"] == "table" and m["info"]["seats"][seat]["bot"] is not None

    await ada.send("add_bot", table=table, seat=1, kind="strong")
    msg = await ada.until(level(1))
    assert msg["info"]["seats"][1]["bot"] == "strong"
    await ada.send("add_bot", table=table, seat=1, kind="random")
    msg = await ada.until(lambda m: m["t"] == "table" and m["info"]["seats"][1]["bot"] == "random")
    assert hub.tables[table].seats[1].bot == "random"
    # A person's seat is not a bot's: its level cannot be set.
    await ada.send("add_bot", table=table, seat=0, kind="strong")
    assert (await ada.expect("error"))["code"] == "seat_taken"
    await ada.close()
