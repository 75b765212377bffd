"""The lobby at scale: an update is encoded once for everyone it goes to, and no message to a
player grows with the number of players online or tables open (issue 20)."""

from __future__ import annotations

import asyncio

import msgpack

from protocol.codec import encode
from server.hub import Hub
from server.hub.lobby import Lobby
from server.hub.table import Seat

from .conftest import fast_config
from .harness import connect


def count_packb(monkeypatch) -> list[int]:
    """Counts every msgpack encoding from now on (the codec's and the lobby's own)."""
    calls = [0]
    real = msgpack.packb

    def counting(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(msgpack, "packb", counting)
    return calls


async def test_a_lobby_update_is_encoded_once_however_many_clients_get_it(hub, monkeypatch):
    ada = await connect(hub)
    await ada.hello("Ada")
    await ada.send("create_table", game="prophets_gambit", players=5)
    table = hub.tables[(await ada.expect("table"))["table"]]
    await ada.send("lobby_watch", on=False)
    watchers = []
    encodings = {}
    for n in (3, 30):
        while len(watchers) < n:
            watcher = await connect(hub)
            await watcher.hello(f"W{len(watchers):02}")
            await watcher.expect("lobby")
            watchers.append(watcher)
        await asyncio.sleep(0.1)  # the players' arrivals are sent
        hub.lobby.flush()
        marks = [len(w.log) for w in watchers]

        # A table's row changes: every watcher gets the same update.
        table.games_played += 1
        hub.lobby.table_changed(table)
        calls = count_packb(monkeypatch)
        hub.lobby.flush()
        encodings[n] = calls[0]
        monkeypatch.undo()
        for watcher, mark in zip(watchers, marks, strict=True):
            update = await watcher.until(
                lambda m, w=watcher, k=mark: w.log.index(m) >= k and m["t"] == "lobby_update"
            )
            assert [row["games_played"] for row in update["tables"]] == [table.games_played]
            assert update["players"] is None and update["tables_total"] == 1

        # Someone arrives: each watcher's players list starts with themself, yet it is joined
        # from entries each encoded once, not encoded again for every recipient.
        hub.lobby.flush()
        marks = [len(w.log) for w in watchers]
        late = await connect(hub)
        await late.hello(f"Late{n}")
        await late.send("lobby_watch", on=False)
        await asyncio.sleep(0.05)
        calls = count_packb(monkeypatch)
        hub.lobby.flush()
        arrivals = calls[0]
        monkeypatch.undo()
        online = len(hub.players)
        assert arrivals <= online + 10, (n, arrivals, online)  # once per recipient: n * online
        for watcher, mark in zip(watchers, marks, strict=True):
            update = await watcher.until(
                lambda m, w=watcher, k=mark: w.log.index(m) >= k and m["players"] is not None
            )
            names = [p["name"] for p in update["players"]]
            assert names[0] == f"W{watchers.index(watcher):02}"  # themself first
            assert f"Late{n}" in names and update["online"] == online
    # Ten times the watchers, the same encodings (one row, the rest shared).
    assert encodings[30] == encodings[3] <= 12, encodings


async def test_no_lobby_message_grows_with_players_online_or_tables_open(store):
    hub = Hub(store, fast_config(lobby_tables=4, lobby_players=4))
    await hub.start()
    try:
        sizes = {}
        for players in (6, 24):
            clients = []
            for i in range(players):
                client = await connect(hub)
                await client.hello(f"P{players:02}{i:02}")
                await client.send("create_table", game="prophets_gambit", players=5)
                await client.expect("table")
                clients.append(client)
            await asyncio.sleep(0.1)
            fresh = await connect(hub)
            await fresh.hello(f"Fresh{players:02}")
            lobby = await fresh.expect("lobby")
            assert len(lobby["tables"]) == 4 and len(lobby["players"]) == 4
            assert lobby["tables_total"] == len(hub.tables)
            assert lobby["online"] == len(hub.players)
            more = await connect(hub)
            await more.hello(f"More{players:02}")
            update = await fresh.until(lambda m: m["t"] == "lobby_update" and m["players"])
            assert len(update["players"]) == 4 and len(update["tables"]) <= 4
            sizes[players] = (len(encode(lobby)), len(encode(update)))
            for client in [*clients, fresh, more]:
                await client.conn.close()
        # Four times the players and tables: the same size, but for a digit or two.
        assert sizes[24][0] <= sizes[6][0] + 16, sizes
        assert sizes[24][1] <= sizes[6][1] + 16, sizes
    finally:
        await hub.stop()


def test_a_tables_record_keeps_every_seat_field():
    """Table.record lists a seat's fields by hand (asdict is slow): none may be forgotten."""
    from server.hub.table import Table

    table = Table(id=1, game="prophets_gambit", players=5, options={}, owner="a")
    table.seats = [Seat(player="a", bot="b", reserved="c")]
    assert table.record()["seats"] == [{"player": "a", "bot": "b", "reserved": "c"}]
    assert set(Seat.__dataclass_fields__) == {"player", "bot", "reserved"}


def test_the_names_online_index_follows_arrivals_renames_and_departures():
    """Each hello asks it whether a name is taken online: it must follow every change."""
    from server.hub.online_names import OnlineNames

    names = OnlineNames()
    names.add("a", "Alice")
    assert names.like("alice", "b") == "Alice"  # case ignored
    assert names.like("\u0410lice", "b") == "Alice"  # a Cyrillic А looks the same
    assert names.like("Alice", "a") is None  # their own name
    names.add("a", "Bob")  # renamed
    assert names.like("Alice", "b") is None and names.like("BOB", "b") == "Bob"
    names.add("c", "bob")
    names.remove("a")
    assert names.like("Bob", "b") == "bob"
    names.remove("c")
    assert names.like("Bob", "b") is None and names._by == {}


async def host_and_watcher(hub, players: int = 5):
    """Ada, at a table of hers (out of the lobby), and a second player in the lobby."""
    ada = await connect(hub)
    await ada.hello("Ada")
    await ada.send("create_table", game="prophets_gambit", players=players)
    table = hub.tables[(await ada.expect("table"))["table"]]
    watcher = await connect(hub)
    await watcher.hello("Wes")
    await watcher.expect("lobby")
    await asyncio.sleep(0.1)
    hub.lobby.flush()  # the arrivals and the lobby shown from a snapshot are settled
    return ada, table, watcher


async def test_a_flush_after_moves_alone_goes_through_no_client(hub, monkeypatch):
    """Moves at thousands of tables mark them for the lobby four times a second; when no row
    changed, a flush must neither list the tables again nor go through every client."""
    _, table, watcher = await host_and_watcher(hub)
    listings = [0]
    real = Lobby._listing_now

    def counting(self):
        listings[0] += 1
        return real(self)

    monkeypatch.setattr(Lobby, "_listing_now", counting)
    mark = len(watcher.log)
    hub.lobby.table_changed(table)  # as a move does: its row is as it was
    hub.lobby.flush()
    assert listings[0] == 0
    table.games_played += 1  # a row that changed goes out as before
    hub.lobby.table_changed(table)
    hub.lobby.flush()
    assert listings[0] == 1
    update = await watcher.until(
        lambda m: watcher.log.index(m) >= mark and m["t"] == "lobby_update"
    )
    assert [row["games_played"] for row in update["tables"]] == [table.games_played]


async def test_the_listing_is_made_again_only_when_a_table_moves_in_it(hub):
    """Games ending at thousands of tables change their rows every flush; the listing (every
    table and seat gone through) is made again only when a table comes, goes, or its place
    or its people change, and then shows the change."""
    ada, first, _ = await host_and_watcher(hub, players=3)
    await ada.send("create_table", game="prophets_gambit", players=3)
    second = hub.tables[(await ada.expect("table"))["table"]]
    hub.lobby.flush()
    listing = hub.lobby._listing_now()
    assert listing[0] == [second.id, first.id]  # both have a free seat: newest first

    first.games_played += 1  # the row changes, the table's place does not
    hub.lobby.table_changed(first)
    hub.lobby.flush()
    assert hub.lobby._listing_now() is listing

    second.seats[:] = [Seat(bot="heuristic") for _ in range(3)]  # full: after a free one
    hub.lobby.table_changed(second)
    hub.lobby.flush()
    assert hub.lobby._listing_now()[0] == [first.id, second.id]

    wes_id = next(p.id for p in hub.players.values() if p.name == "Wes")
    first.seats[0] = Seat(player=wes_id)  # Wes's own table from now on
    hub.lobby.table_changed(first)
    hub.lobby.flush()
    assert hub.lobby._listing_now()[1][wes_id] == [first.id]

    await ada.send("create_table", game="prophets_gambit", players=3)
    third = hub.tables[(await ada.expect("table"))["table"]]
    hub.lobby.flush()
    assert hub.lobby._listing_now()[0] == [third.id, first.id, second.id]
    del hub.tables[third.id]
    hub.lobby.table_removed(third.id)
    hub.lobby.flush()
    assert hub.lobby._listing_now()[0] == [first.id, second.id]


async def test_a_flush_goes_through_the_sessions_in_the_lobby_only(hub):
    """Ten thousand players at tables and a thousand in the lobby: a flush goes through the
    thousand. A session that leaves the lobby (or the server) is not gone through; one that
    comes back is, and gets its updates again."""
    ada = await connect(hub)
    await ada.hello("Ada")
    await ada.expect("lobby")
    bob = await connect(hub)
    await bob.hello("Bob")
    await bob.expect("lobby")
    sessions = {s.player.name: s for s in hub.sessions if s.player is not None}
    assert set(hub.lobby._watching) >= {sessions["Ada"], sessions["Bob"]}
    await ada.send("lobby_watch", on=False)
    await ada.send("ping", n=1)
    await ada.expect("pong")
    assert sessions["Ada"] not in hub.lobby._watching
    await ada.send("lobby_watch", on=True)
    await ada.expect("lobby")  # the whole lobby again, then its updates
    assert sessions["Ada"] in hub.lobby._watching
    await bob.send("create_table", game="prophets_gambit", players=3)
    await bob.expect("table")
    hub.lobby.flush()
    update = await ada.expect("lobby_update")
    assert [row["owner"] for row in update["tables"]] == ["Bob"]
    await bob.close()
    for _ in range(100):
        if sessions["Bob"] not in hub.sessions:
            break
        await asyncio.sleep(0.01)
    assert sessions["Bob"] not in hub.lobby._watching
