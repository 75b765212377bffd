"""Lookalike names (issue 17, hole 6): a name that looks like a registered or online one is
refused, by the skeleton and the mixed-script rule, in the store and through the hub.

Every store here is a real SQLite file in a temporary folder (the ``store`` fixture), and every
hub is in-process, spoken to through real protocol frames (``tests/hub/harness.py``).
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.hub import Hub
from server.store import (
    CURRENT_VERSION,
    DB_NAME,
    NameTaken,
    Store,
    mixed_script,
    name_key,
    schema,
    skeleton,
)
from tests.hub.conftest import fast_config
from tests.hub.harness import Client, connect

#: "Alice" with a Cyrillic А, a Cyrillic і, a Cyrillic с; with a small capital A; with an acute.
MIXED = ["\u0410lice", "Al\u0456ce", "Ali\u0441e"]
SAME_SCRIPT = ["\u1d00lice", "\u00c1lice"]
LOOKALIKES = MIXED + SAME_SCRIPT
#: Real names in Ukrainian, English and German that must stay possible side by side.
LEGIT = ["Олена", "Olena", "Сергій", "Björn", "Ярослава", "Jürgen", "Oleksandr", "Їжак"]


@pytest.fixture
async def hub(store):
    h = Hub(store, fast_config())
    await h.start()
    yield h
    await h.stop()


async def player(hub: Hub, name: str, identity: str | None) -> tuple[Client, dict]:
    """A connected player who asked for ``name``; returns the client and its welcome."""
    client = await connect(hub, trusted=identity is not None)
    return client, await client.hello(name, identity=identity)


async def refused(client: Client, ref: str = "hello") -> dict:
    error = await client.expect("error")
    assert error["ref"] == ref
    return error


# --- the skeleton and the script rule ----------------------------------------------------------


def test_the_five_lookalikes_share_alices_skeleton():
    assert skeleton("Alice") == "alice"
    for name in LOOKALIKES:
        assert name_key(name) != name_key("Alice")  # so the old rule let them all in
        assert skeleton(name) == skeleton("Alice"), name


def test_skeleton_ignores_case_and_accents_and_knows_whole_script_lookalikes():
    assert skeleton("ALICE") == skeleton("alice") == skeleton("Alice")
    assert skeleton("Björn") == skeleton("BJORN")
    assert skeleton("Ａｌｉｃｅ") == skeleton("Alice")  # full-width forms
    assert skeleton("A1ice") == skeleton("Alice")  # digit one for l
    assert skeleton("B0b") == skeleton("Bob")  # digit zero for o
    assert skeleton("Сосо") == skeleton("Coco")  # all Cyrillic, yet reads as Latin
    assert skeleton("Вова") == skeleton("Boba")  # в's prototype ʙ is a small capital B


def test_distinct_names_keep_distinct_skeletons():
    skeletons = {skeleton(name) for name in LEGIT}
    assert len(skeletons) == len(LEGIT)
    assert skeleton("Олена") != skeleton("Olena")  # л and н are not l and n
    assert skeleton("Neil") != skeleton("Nell")
    assert skeleton("Mia") != skeleton("Max")


def test_mixed_script_is_letters_of_two_scripts_only():
    for name in MIXED:
        assert mixed_script(name), name
    assert mixed_script("Bоb")  # Cyrillic о
    assert mixed_script("Alice\u03b1")  # Greek alpha
    for name in [*LEGIT, "Alice", "ᴀlice", "Álice", "Player-0042", "O'Neil Jr.", "Йосип 2"]:
        assert not mixed_script(name), name
    assert not mixed_script("山田たろう")  # Han with kana is one writing system (Japanese)


letters = st.characters(categories=("Lu", "Ll", "Lt", "Lo", "Nd"))


@settings(max_examples=300, deadline=None)
@given(st.text(letters, min_size=1, max_size=24))
def test_skeleton_is_stable_and_blind_to_case(name):
    sk = skeleton(name)
    assert skeleton(sk) == sk
    assert skeleton(name.upper()) == sk == skeleton(name.lower())


# --- the store ---------------------------------------------------------------------------------


def test_store_refuses_every_lookalike_of_a_registered_name(store: Store):
    store.ensure_player("k-alice", starting_chips=0)
    store.ensure_player("k-mallory", starting_chips=0)
    store.set_name("k-alice", "Alice")
    for name in LOOKALIKES:
        assert store.name_owner(name) is None  # not the same name...
        assert store.skeleton_owner(name) == "k-alice"  # ...but the same skeleton
        with pytest.raises(NameTaken) as caught:
            store.set_name("k-mallory", name)
        assert caught.value.owner == "k-alice" and caught.value.like == "Alice"
    assert store.get_player("k-mallory")["name"] is None
    assert store.skeleton_owner("Alice", other_than="k-alice") is None
    store.set_name("k-alice", "ÁLICE")  # a player may write their own name otherwise
    store.set_name("k-alice", None)  # once released, the lookalike is free
    store.set_name("k-mallory", "Álice")
    assert store.skeleton_owner("Alice") == "k-mallory"


# --- the hub -----------------------------------------------------------------------------------


async def test_hub_refuses_lookalikes_of_a_registered_player_online(hub: Hub):
    alice, welcome = await player(hub, "Alice", "key-alice")
    assert welcome["you"]["name"] == "Alice"
    for i, name in enumerate(LOOKALIKES):
        for identity in (f"key-{i}", None):  # a registered player or a guest
            client, welcome = await player(hub, name, identity)
            assert welcome["you"]["name"] != name
            error = await refused(client)
            if name in MIXED:
                assert error["code"] == "bad_name"
                assert "Latin" in error["message"] and "Cyrillic" in error["message"]
            else:
                assert error["code"] == "name_taken"
                assert "looks too much like Alice" in error["message"]
            await client.close()
    # Nor may a player already in rename themselves to one.
    carol, _ = await player(hub, "Carol", "key-carol")
    for name in LOOKALIKES:
        await carol.send("profile", name=name)
        error = await refused(carol, "profile")
        assert error["code"] == ("bad_name" if name in MIXED else "name_taken")
    assert hub.players["key-carol"].name == "Carol"
    assert hub.store.get_player("key-carol")["name"] == "Carol"
    assert {p.name for p in hub.players.values()} == {"Alice", "Carol"}
    await alice.close()


async def test_hub_refuses_lookalikes_of_a_registered_player_offline(hub: Hub):
    alice, _ = await player(hub, "Alice", "key-alice")
    await alice.close()
    await asyncio.sleep(0.05)
    assert "key-alice" not in hub.players
    for i, name in enumerate(LOOKALIKES):
        client, welcome = await player(hub, name, f"key-{i}")
        assert welcome["you"]["name"] != name
        error = await refused(client)
        assert error["code"] == ("bad_name" if name in MIXED else "name_taken")
        if name in SAME_SCRIPT:
            assert "another player's name" in error["message"]
    # A lookalike in one script alone is refused by the skeleton, online or not.
    coco, _ = await player(hub, "Coco", "key-coco")
    await coco.close()
    await asyncio.sleep(0.05)
    client, welcome = await player(hub, "Сосо", "key-soso")
    assert (await refused(client))["code"] == "name_taken"
    # Alice herself comes back under her name.
    alice, welcome = await player(hub, "Alice", "key-alice")
    assert welcome["you"]["name"] == "Alice"


async def test_hub_refuses_a_lookalike_of_a_guest_online(hub: Hub):
    guest, welcome = await player(hub, "Alice", None)  # online, never registered
    assert welcome["you"]["name"] == "Alice" and welcome["you"]["guest"]
    client, welcome = await player(hub, "ᴀlice", "key-m")
    error = await refused(client)
    assert error["code"] == "name_taken" and "who is online" in error["message"]
    await guest.close()
    await asyncio.sleep(0.05)
    client, welcome = await player(hub, "ᴀlice", "key-m2")  # the guest's name left with them
    assert welcome["you"]["name"] == "ᴀlice"


async def test_hub_refuses_mixed_scripts_with_a_clear_message(hub: Hub):
    client, welcome = await player(hub, "Bоb", "key-b")  # Cyrillic о in a Latin name
    error = await refused(client)
    assert error["code"] == "bad_name"
    assert error["message"] == (
        "Bоb mixes letters of different alphabets (Cyrillic, Latin); write a name in one alphabet."
    )
    assert welcome["you"]["name"].startswith("Player-")


async def test_hub_accepts_real_names_in_cyrillic_and_latin_side_by_side(hub: Hub):
    clients = []
    for i, name in enumerate(LEGIT):
        client, welcome = await player(hub, name, f"key-{i}")
        assert welcome["you"]["name"] == name
        clients.append(client)
    await asyncio.sleep(0.05)
    for client in clients:
        assert not [m for m in client.log if m["t"] == "error"]
    assert sorted(p.name for p in hub.players.values()) == sorted(LEGIT)


async def test_a_player_keeps_their_own_name_in_other_case_or_accent(hub: Hub):
    alice, _ = await player(hub, "Alice", "key-alice")
    for name in ["ALICE", "Álice", "alice"]:
        await alice.send("profile", name=name)
        you = await alice.expect("you")
        assert you["name"] == name
    assert hub.store.get_player("key-alice")["name"] == "alice"
    await alice.send("profile", name="Аlice")  # but not in another alphabet
    assert (await refused(alice, "profile"))["code"] == "bad_name"


# --- an existing database ----------------------------------------------------------------------


def _make_v2_file(path: Path, players: list[tuple[str, str | None, float]]) -> None:
    """A database as Gambit wrote it before skeletons (schema version 2), with players."""
    conn = sqlite3.connect(path, isolation_level=None)
    for script in (schema.V1_SCHEMA, schema.V2_SCHEMA):
        for stmt in schema.statements(script):
            conn.execute(stmt, {"empty": schema.EMPTY_MAP})
    conn.execute("PRAGMA user_version = 2")
    for pid, name, created in players:
        conn.execute(
            "INSERT INTO players (id, name, name_key, created, prefs) VALUES (?, ?, ?, ?, ?)",
            (pid, name, name and name_key(name), created, schema.EMPTY_MAP),
        )
    conn.close()


def test_migration_gives_existing_names_their_skeletons(tmp_path: Path):
    # Before the fix a lookalike could register beside the original: both must survive.
    _make_v2_file(
        tmp_path / DB_NAME,
        [
            ("k-alice", "Alice", 100.0),
            ("k-fake", "\u0410lice", 200.0),
            ("k-olena", "Олена", 300.0),
            ("k-none", None, 400.0),
        ],
    )
    with Store.open(tmp_path) as store:
        assert store.schema_version == CURRENT_VERSION
        rows = dict(store._conn.execute("SELECT id, name_skeleton FROM players"))
        assert rows == {
            "k-alice": "alice",
            "k-fake": "alice",
            "k-olena": skeleton("Олена"),
            "k-none": None,
        }
        assert store.get_player("k-fake")["name"] == "\u0410lice"  # kept, not destroyed
        assert store.skeleton_owner("ᴀlice") == "k-alice"  # the one who came first...
        assert store.skeleton_owner("ᴀlice", other_than="k-alice") is None  # ...keeps it
        assert store.skeleton_owner("Alice", other_than="k-fake") == "k-alice"
        with pytest.raises(NameTaken):
            store.set_name("k-fake", "Alice")
        store.ensure_player("k-new", starting_chips=0)
        with pytest.raises(NameTaken):
            store.set_name("k-new", "Álice")
        store.set_name("k-new", "Olena")  # Latin Olena is not Cyrillic Олена
        plan = store._conn.execute(
            "EXPLAIN QUERY PLAN SELECT id FROM players WHERE name_skeleton = ?", ("x",)
        ).fetchall()
        assert any("players_name_skeleton" in row[-1] for row in plan)


def test_stale_skeletons_are_recomputed_on_open(tmp_path: Path):
    """A newer confusables table may move a character: the file notes which one it used."""
    with Store.open(tmp_path) as store:
        store.ensure_player("k-alice", starting_chips=0)
        store.set_name("k-alice", "Alice")
        store._conn.execute("UPDATE players SET name_skeleton = 'stale'")
        store._conn.execute("UPDATE meta SET value = 'old table' WHERE key = 'skeleton_version'")
    with Store.open(tmp_path) as store:
        assert store.skeleton_owner("Аlice") == "k-alice"
        assert not schema.refresh_skeletons(store._conn)  # up to date now


async def test_the_hub_renames_an_old_lookalike_when_it_comes_back(tmp_path: Path):
    _make_v2_file(tmp_path / DB_NAME, [("k-alice", "Alice", 1.0), ("k-fake", "ᴀlice", 2.0)])
    with Store.open(tmp_path) as store:
        hub = Hub(store, fast_config())
        await hub.start()
        try:
            fake = await connect(hub)
            welcome = await fake.hello(identity="k-fake")  # asks for its stored name
            assert welcome["you"]["name"] != "ᴀlice"
            assert (await fake.expect("error"))["code"] == "name_taken"
            alice = await connect(hub)
            assert (await alice.hello(identity="k-alice"))["you"]["name"] == "Alice"
        finally:
            await hub.stop()


# --- what the player sees ----------------------------------------------------------------------


async def test_the_app_shows_the_refusal_on_the_welcome_screen(hub: Hub):
    """The app needs no change: a hello's refusal arrives after the welcome, as an error the
    app shows as a notice over the welcome screen, where the name can be chosen again."""
    from textual.widgets import Input

    from gambit_tui.screens.welcome import WelcomeScreen
    from tests.tui.conftest import make_app, screen_text, wait_for

    alice, _ = await player(hub, "Alice", "key-alice")
    app = make_app(hub, name="ᴀlice", identity="SHA256:mallory")
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, WelcomeScreen))
        await wait_for(pilot, lambda: "looks too much like Alice" in screen_text(app))
        assert isinstance(app.screen, WelcomeScreen)
        assert app.screen.query_one("#name", Input).value.startswith("Player-")
    await alice.close()
