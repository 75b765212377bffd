"""``gambit event …`` against a running hub's trusted socket: an operator makes an event,
lists it, starts, pauses, extends, removes a player and cancels it, and is told the hub's
refusals; without a server it says so. Players see such an event hosted by the name the
operator gave it, or by the server's name."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from server.cli import build_parser
from server.event_cli import ask, main_event, request_of, server_name, show
from server.hub import Hub
from server.hub.listener import serve_unix
from server.store import Store

from .conftest import fast_config
from .harness import connect

NOW = 1_800_000_000.0


def _args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["event", *argv])


def test_the_arguments_make_the_hubs_requests():
    made = request_of(
        _args("create", "Friday", "--players", "4", "--starts-in", "20m", "--closes-in", "3h"),
        NOW,
    )
    assert made["op"] == "create" and made["players"] == 4
    assert (made["starts_at"], made["closes_at"]) == (NOW + 1200, NOW + 3 * 3600)
    assert request_of(_args("extend", "7", "2"), NOW) == {
        "t": "night",
        "op": "extend",
        "night": 7,
        "rounds": 2,
    }
    assert request_of(_args("cancel", "7"), NOW) == {"t": "night", "op": "cancel", "night": 7}


async def test_an_operator_runs_an_event_from_the_command_line(store: Store, tmp_path: Path):
    hub = Hub(store, fast_config())
    await hub.start()
    sock = tmp_path / "hub.sock"
    server = await serve_unix(hub, sock)
    made = await ask(sock, request_of(_args("create", "Friday", "--rounds", "2"), NOW))
    night = made["night"]["id"]
    assert hub.nights.nights[night].host == "admin:local"
    players = []
    for i in range(3):
        client = await connect(hub)
        await client.hello(f"P{i}", identity=f"key-{i}")
        await client.send("night", op="register", night=night)
        await client.expect("night")
        players.append(client)
    listed = await ask(sock, request_of(_args("list"), NOW))
    assert show(listed).startswith(
        f"{night}  Friday  prophets_gambit  swiss  host={server_name()}  players=3"
    )
    extended = await ask(sock, request_of(_args("extend", str(night), "2"), NOW))
    assert extended["night"]["rounds"] == 4
    paused = await ask(sock, request_of(_args("pause", str(night)), NOW))
    assert show(paused) == f"event {night} Friday: registering, round 0 of 4, 3 registered, paused"
    await ask(sock, request_of(_args("remove", str(night), "P2"), NOW))
    assert hub.nights.nights[night].active() == ["key-0", "key-1"]
    refused = await ask(sock, request_of(_args("remove", str(night), "Nobody"), NOW))
    assert refused["t"] == "error" and refused["code"] == "event_no_player"
    started = await ask(sock, request_of(_args("start", str(night)), NOW))
    assert started["night"]["status"] == "playing"
    cancelled = await ask(sock, request_of(_args("cancel", str(night)), NOW))
    assert cancelled["night"]["status"] == "cancelled"
    assert not [t for t in hub.tables.values() if t.night is not None]
    assert store.ledger_total() == 0
    for client in players:
        await client.close()
    server.close()
    await hub.stop()


async def test_an_operator_invites_a_player_to_an_event_for_invited_players(
    store: Store, tmp_path: Path
):
    hub = Hub(store, fast_config())
    await hub.start()
    sock = tmp_path / "hub.sock"
    server = await serve_unix(hub, sock)
    create = _args("create", "Friday", "--access", "invited")
    assert request_of(create, NOW)["access"] == "invited"
    night = (await ask(sock, request_of(create, NOW)))["night"]["id"]
    ada = await connect(hub)
    await ada.hello("Ada", identity="key-ada")
    await ada.send("night", op="register", night=night)
    assert (await ada.expect("error"))["code"] == "not_allowed"
    invite = _args("invite", str(night), "Ada")
    assert request_of(invite, NOW) == {
        "t": "night",
        "op": "invite",
        "night": night,
        "player": "Ada",
    }
    assert (await ask(sock, request_of(invite, NOW)))["message"] == "Invited Ada."
    await ada.expect("notice", code="night_invited")
    await ada.send("night", op="register", night=night)
    await ada.until(lambda m: m["t"] == "night" and m["night"]["registered"] == 1)
    taken_back = await ask(sock, request_of(_args("uninvite", str(night), "Ada"), NOW))
    assert taken_back["message"] == "Ada is no longer invited to Friday."
    assert hub.nights.nights[night].invited == []
    await ada.close()
    server.close()
    await hub.stop()


def test_the_servers_name_is_the_one_the_local_network_lists():
    assert server_name("box.example.org") == "Gambit on box"
    assert server_name("a-very-long-machine-name-01.lan") == "a-very-long-machine-name"
    assert server_name("!!!") == "Gambit"
    assert request_of(_args("create", "Friday"), NOW)["host"] == server_name()
    assert request_of(_args("create", "Friday", "--host", "Ada's Club"), NOW)["host"] == (
        "Ada's Club"
    )


async def test_players_see_an_operators_event_hosted_by_its_given_name_or_the_servers(
    store: Store, tmp_path: Path
):
    """Regression: an event made with ``gambit event create`` was shown hosted by the local
    admin's made-up name ("Player-0421", another at each command), or "?" once forgotten."""
    hub = Hub(store, fast_config())
    await hub.start()
    sock = tmp_path / "hub.sock"
    server = await serve_unix(hub, sock)
    create = _args("create", "Friday", "--host", "Ada's Club", "--rounds", "1")
    friday = (await ask(sock, request_of(create, NOW)))["night"]["id"]
    saturday = (await ask(sock, request_of(_args("create", "Saturday"), NOW)))["night"]["id"]
    await ask(sock, request_of(_args("pause", str(saturday)), NOW))  # (another command)
    players = []
    for i in range(3):
        client = await connect(hub)
        await client.hello(f"P{i}", identity=f"key-{i}")
        players.append(client)
    bob = players[0]
    await bob.send("night", op="list")
    listed = (await bob.expect("nights"))["nights"]
    assert {n["id"]: n["host"] for n in listed} == {friday: "Ada's Club", saturday: server_name()}
    # The operator's list says so too, as the app's plain ``events`` line does.
    rows = show(await ask(sock, request_of(_args("list"), NOW))).splitlines()
    assert {row.split("  ")[0]: row.split("  ")[4] for row in rows} == {
        str(friday): "host=Ada's Club",
        str(saturday): f"host={server_name()}",
    }
    for client in players:
        await client.send("night", op="register", night=friday)
        await client.until(lambda m: m["t"] == "night" and m["night"]["you"])
    await bob.send("night", op="watch", night=friday)
    assert (await bob.expect("night"))["night"]["host"] == "Ada's Club"
    # Its tables say in the lobby that its host opened them.
    await ask(sock, request_of(_args("start", str(friday)), NOW))
    tables = [t for t in hub.tables.values() if t.night is not None]
    assert tables and [hub.lobby.row(t.id)["owner"] for t in tables] == ["Ada's Club"]
    # A restarted hub shows the same.
    kept = hub.nights.nights[friday]
    assert type(kept).from_record(kept.to_record()).host_name == "Ada's Club"
    # Only an admin names the host of an event: a player's is their own name.
    await bob.send(
        "night", op="create", name="Mine", game="prophet", players=3, format="swiss", host="Ada"
    )
    assert (await bob.expect("error"))["code"] == "not_admin"
    for client in players:
        await client.close()
    server.close()
    await hub.stop()


def test_gambit_event_without_a_server_says_so(tmp_path: Path, capsys: pytest.CaptureFixture):
    assert main_event(_args("--data-dir", str(tmp_path), "list")) == 1
    assert "no running server" in capsys.readouterr().err
