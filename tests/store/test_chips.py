"""The chip ledger: double entry, no overdraft except the bank, atomic groups of calls."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Callable, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.store import InsufficientChips, Store, StoreError

from .conftest import empty


def test_transfer_moves_chips_and_writes_two_rows(store: Store):
    store.transfer("bank", "player:a", 100, "grant")
    number = store.transfer("player:a", "pot:1", 30, "ante", ref=1)
    assert store.balance("player:a") == 70
    assert store.balance("pot:1") == 30
    assert store.balance("bank") == -100
    assert store.balance("never-used") == 0
    rows = [r for r in store.ledger() if r["transfer"] == number]
    assert sorted((r["account"], r["amount"], r["counterparty"]) for r in rows) == [
        ("player:a", -30, "pot:1"),
        ("pot:1", 30, "player:a"),
    ]
    assert {r["reason"] for r in rows} == {"ante"} and {r["ref"] for r in rows} == {1}
    assert store.ledger_total() == 0
    assert store.balances("pot:") == {"pot:1": 30}
    assert store.audit() == []


def test_ledger_is_newest_first_filtered_and_limited(store: Store):
    for i in range(1, 6):
        store.transfer("bank", "player:a", i, "grant", ref=f"r{i}")
    store.transfer("bank", "player:b", 9, "grant")
    mine = store.ledger("player:a")
    assert [r["amount"] for r in mine] == [5, 4, 3, 2, 1]
    assert [r["ref"] for r in mine] == ["r5", "r4", "r3", "r2", "r1"]
    assert [r["amount"] for r in store.ledger("player:a", limit=2)] == [5, 4]
    assert len(store.ledger()) == 12
    assert store.ledger(limit=1)[0]["account"] in {"bank", "player:b"}


def test_overdraft_is_refused_and_changes_nothing(store: Store):
    store.transfer("bank", "player:a", 10, "grant")
    before = store.ledger()
    with pytest.raises(InsufficientChips) as info:
        store.transfer("player:a", "pot:1", 11, "ante")
    assert (info.value.account, info.value.balance, info.value.amount) == ("player:a", 10, 11)
    # A pot cannot pay out chips it never received either.
    with pytest.raises(InsufficientChips):
        store.transfer("pot:1", "player:a", 1, "payout")
    assert store.ledger() == before
    assert store.balance("player:a") == 10
    store.transfer("player:a", "pot:1", 10, "ante")  # exactly everything is fine
    assert store.balance("player:a") == 0


@pytest.mark.parametrize(
    ("src", "dst", "amount"),
    [
        ("bank", "player:a", 0),
        ("bank", "player:a", -5),
        ("bank", "player:a", 1.5),
        ("bank", "player:a", True),
        ("bank", "bank", 1),
        ("", "player:a", 1),
    ],
)
def test_bad_transfers_are_refused(store: Store, src, dst, amount):
    with pytest.raises(ValueError):
        store.transfer(src, dst, amount, "x")
    assert store.ledger() == []


def test_transaction_commits_together(store: Store, reopen):
    store.transfer("bank", "player:a", 50, "grant")
    store.transfer("bank", "player:b", 50, "grant")
    with store.transaction():
        store.transfer("player:a", "pot:1", 10, "ante")
        store.transfer("player:b", "pot:1", 10, "ante")
        assert store.in_transaction
    assert not store.in_transaction
    again = reopen()
    try:
        assert again.balance("pot:1") == 20
    finally:
        again.close()


def test_exception_rolls_back_the_whole_group(store: Store):
    store.transfer("bank", "player:a", 50, "grant")
    before = (store.ledger(), store.balances())
    with pytest.raises(InsufficientChips), store.transaction():
        store.transfer("player:a", "pot:1", 40, "ante")
        store.record_game(1, {"game": "prophet"}, [], {}, ["a"])
        store.transfer("player:a", "pot:1", 40, "ante")  # only 10 left
    assert (store.ledger(), store.balances()) == before
    assert store.games_of("a", 10) == []


def test_nested_transactions_join_the_outer_one(store: Store):
    store.transfer("bank", "player:a", 50, "grant")
    with pytest.raises(KeyError), store.transaction():
        with store.transaction():
            store.transfer("player:a", "pot:1", 5, "ante")
        assert store.balance("pot:1") == 5  # visible inside, not yet committed
        raise KeyError("outer fails")
    assert store.balance("pot:1") == 0  # the inner block's work went with the outer


def test_caught_error_inside_a_group_undoes_only_that_call(store: Store):
    """The hub may try antes one by one and skip a player who cannot pay."""
    store.transfer("bank", "player:a", 50, "grant")
    store.transfer("bank", "player:b", 3, "grant")
    with store.transaction():
        store.transfer("player:a", "pot:1", 10, "ante")
        with pytest.raises(InsufficientChips):
            store.transfer("player:b", "pot:1", 10, "ante")
        with pytest.raises(RuntimeError), store.transaction():
            store.transfer("player:a", "pot:1", 1, "tip")
            raise RuntimeError
    assert store.balances("player:") == {"player:a": 40, "player:b": 3}
    assert store.balance("pot:1") == 10
    assert store.audit() == []


def test_database_errors_come_out_as_store_errors(store: Store):
    with pytest.raises(StoreError) as info, store.transaction():
        store._conn.execute("INSERT INTO no_such_table VALUES (1)")
    assert isinstance(info.value.__cause__, store._errors)  # sqlite3's or psycopg's
    assert not store.in_transaction
    store.transfer("bank", "player:a", 1, "still works")


def test_audit_notices_a_tampered_balance(store: Store):
    store.transfer("bank", "player:a", 10, "grant")
    store._conn.execute("UPDATE balances SET balance = 11 WHERE account = 'player:a'")
    assert store.audit() == ["player:a: stored balance 11, ledger says 10"]


def test_a_closed_tables_empty_pot_leaves_no_balance_row(store: Store):
    """Issue 43: every table that played left its pot's balance row (0) for good."""
    store.transfer("bank", "player:a", 10, "grant")
    store.transfer("player:a", "pot:7", 10, "ante")
    store.transfer("pot:7", "player:a", 10, "payout")
    store.delete_table(7)
    assert "pot:7" not in store.balances("pot:")
    assert store.audit() == [] and store.balance("pot:7") == 0
    assert len(store.ledger("pot:7")) == 2, "the game's antes and payouts stay"
    store._conn.execute("DELETE FROM balances WHERE account = 'player:a'")
    assert store.audit() == ["player:a: stored balance None, ledger says 10"]


ACCOUNTS = ["bank", "player:a", "player:b", "player:c", "pot:1", "pot:2"]
transfer_st = st.tuples(
    st.sampled_from(ACCOUNTS), st.sampled_from(ACCOUNTS), st.integers(1, 60)
).filter(lambda t: t[0] != t[1])
op_st = st.one_of(
    transfer_st.map(lambda t: ("one", [t])),
    st.tuples(st.lists(transfer_st, min_size=1, max_size=4), st.booleans()).map(
        lambda b: ("fail" if b[1] else "group", b[0])
    ),
)


@contextlib.contextmanager
def new_sqlite() -> Iterator[Callable[[], Store]]:
    """An opener of a new, empty SQLite database (in a new folder)."""
    with tempfile.TemporaryDirectory() as folder:
        yield lambda: Store.open(folder)


@settings(max_examples=100, deadline=None)
@given(ops=st.lists(op_st, min_size=1, max_size=30))
def test_ledger_is_conserved_over_random_transfers(ops):
    check_conserved(new_sqlite, ops)


# Fewer examples than on a SQLite file: each costs round trips, and the conditional updates
# under test are the same SQL on both.
@pytest.mark.cluster
@settings(max_examples=25, deadline=None)
@given(ops=st.lists(op_st, min_size=1, max_size=30))
def test_ledger_is_conserved_over_random_transfers_on_postgresql(store_database, ops):
    @contextlib.contextmanager
    def emptied() -> Iterator[Callable[[], Store]]:
        empty(store_database)
        yield lambda: Store(store_database)

    check_conserved(emptied, ops)


def check_conserved(fresh: Callable[[], contextlib.AbstractContextManager], ops) -> None:
    """Whatever the hub does, the total stays 0, no non-bank balance goes negative, and every
    stored balance matches a simple model that applies exactly the transfers that succeeded."""
    model = dict.fromkeys(ACCOUNTS, 0)

    def model_apply(moves: list[tuple[str, str, int]], into: dict[str, int]) -> bool:
        for src, dst, amount in moves:
            if src != "bank" and into[src] < amount:
                return False
            into[src] -= amount
            into[dst] += amount
        return True

    with fresh() as opener:
        store = opener()
        try:
            for kind, moves in ops:
                trial = dict(model)
                ok = model_apply(moves, trial)
                try:
                    with store.transaction():
                        for src, dst, amount in moves:
                            store.transfer(src, dst, amount, kind)
                        if kind == "fail":
                            raise RuntimeError("hub gives up")
                except InsufficientChips:
                    assert not ok
                except RuntimeError:
                    assert kind == "fail"
                else:
                    assert ok and kind != "fail"
                    model = trial
                assert store.ledger_total() == 0
                assert all(store.balance(a) >= 0 for a in ACCOUNTS if a != "bank")
            assert {a: store.balance(a) for a in ACCOUNTS} == model
            assert store.audit() == []
        finally:
            store.close()
        with opener() as again:
            assert {a: again.balance(a) for a in ACCOUNTS} == model
            assert again.ledger_total() == 0


def test_a_gone_guest_is_forgotten_and_the_ledger_still_balances(store: Store):
    """Issue 43 (``--guest-retention``), on both databases: a guest with no chips left is
    forgotten; their game's antes and payouts stay, the bank's side now."""
    store.ensure_player("guest:00ff", starting_chips=100)
    assert store.gone_guests(-1.0) == ["guest:00ff"] and store.gone_guests(3600.0) == []
    assert store.forget_guest("guest:00ff") is False  # still holds chips
    store.transfer("player:guest:00ff", "pot:3", 10, "ante")
    store.transfer("pot:3", "player:guest:00ff", 10, "payout")
    store.transfer("player:guest:00ff", "bank", 100, "guest_left")
    assert store.forget_guest("guest:00ff") is True
    assert store.get_player("guest:00ff") is None and store.gone_guests(-1.0) == []
    assert sorted((r["account"], r["reason"]) for r in store.ledger(limit=10)) == [
        ("bank", "ante"),
        ("bank", "payout"),
        ("pot:3", "ante"),
        ("pot:3", "payout"),
    ]
    assert store.audit() == [] and store.ledger_total() == 0
