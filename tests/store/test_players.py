"""Players: created on first sight with their starting chips; names unique ignoring case."""

from __future__ import annotations

import pytest

from server.store import NameTaken, Store, StoreError


def test_ensure_player_creates_once_and_grants_starting_chips_from_the_bank(store: Store):
    first = store.ensure_player("key:aa", starting_chips=1000)
    assert first["id"] == "key:aa"
    assert first["name"] is None and first["lang"] is None and first["prefs"] == {}
    assert isinstance(first["created"], float)
    assert store.balance("player:key:aa") == 1000
    assert store.balance("bank") == -1000
    grant = store.ledger("player:key:aa")
    assert [(r["amount"], r["counterparty"], r["reason"]) for r in grant] == [
        (1000, "bank", "starting chips")
    ]
    # Seen again (even with another starting amount): nothing changes, no second grant.
    assert store.ensure_player("key:aa", starting_chips=5000) == first
    assert store.balance("player:key:aa") == 1000
    assert store.ledger_total() == 0


def test_ensure_player_with_no_starting_chips_writes_no_ledger_rows(store: Store):
    store.ensure_player("k", starting_chips=0)
    assert store.ledger() == []
    with pytest.raises(ValueError):
        store.ensure_player("k2", starting_chips=-1)
    with pytest.raises(ValueError):
        store.ensure_player("", starting_chips=1)


def test_get_player_unknown_is_none(store: Store):
    assert store.get_player("nobody") is None


def test_names_are_unique_ignoring_case(store: Store):
    for pid in ("a", "b"):
        store.ensure_player(pid, starting_chips=0)
    store.set_name("a", "Alice")
    assert store.get_player("a")["name"] == "Alice"
    assert store.name_owner("alice") == "a"
    assert store.name_owner("ALICE") == "a"
    assert store.name_owner("Bob") is None
    for clash in ("Alice", "alice", "ALICE", "aLiCe", "Ａｌｉｃｅ"):  # last one is full-width
        with pytest.raises(NameTaken) as info:
            store.set_name("b", clash)
        assert info.value.owner == "a"
    assert store.get_player("b")["name"] is None
    # Unicode case folding, not just ASCII: ß folds to ss.
    store.set_name("b", "Straße")
    with pytest.raises(NameTaken):
        store.set_name("a", "STRASSE")


def test_owner_may_recase_and_release_a_name(store: Store):
    for pid in ("a", "b"):
        store.ensure_player(pid, starting_chips=0)
    store.set_name("a", "alice")
    store.set_name("a", "ALICE")  # one's own name in other case is fine
    assert store.get_player("a")["name"] == "ALICE"
    store.set_name("a", "Alicia")  # renaming frees the old name
    store.set_name("b", "Alice")
    assert store.name_owner("alice") == "b"
    store.set_name("b", None)
    assert store.name_owner("alice") is None
    assert store.get_player("b")["name"] is None


def test_names_lang_prefs_survive_a_restart(store: Store, reopen):
    store.ensure_player("a", starting_chips=0)
    store.set_name("a", "Alice")
    store.set_lang("a", "de")
    store.set_prefs("a", {"theme": "dark", "sound": False, "keys": ["h", "j"]})
    again = reopen()
    try:
        assert again.get_player("a") == {
            "id": "a",
            "name": "Alice",
            "lang": "de",
            "prefs": {"theme": "dark", "sound": False, "keys": ["h", "j"]},
            "created": again.get_player("a")["created"],
        }
        assert again.name_owner("ALICE") == "a"
        again.set_prefs("a", {})
        assert again.get_player("a")["prefs"] == {}
    finally:
        again.close()


def test_updates_to_an_unknown_player_are_errors(store: Store):
    with pytest.raises(StoreError, match="No player"):
        store.set_name("ghost", "Ghost")
    with pytest.raises(StoreError):
        store.set_lang("ghost", "en")
    with pytest.raises(StoreError):
        store.set_prefs("ghost", {})
    assert store.name_owner("Ghost") is None


def test_bad_arguments_are_refused(store: Store):
    store.ensure_player("a", starting_chips=0)
    with pytest.raises(ValueError):
        store.set_name("a", "")
    with pytest.raises(ValueError):
        store.set_prefs("a", ["not", "a", "map"])  # type: ignore[arg-type]  # a bad value on purpose


def test_player_created_inside_a_failed_transaction_does_not_exist(store: Store):
    with pytest.raises(RuntimeError), store.transaction():
        store.ensure_player("a", starting_chips=100)
        raise RuntimeError("the hub failed before finishing")
    assert store.get_player("a") is None
    assert store.balance("player:a") == 0
    assert store.ledger() == []
