"""Run by test_durability in a subprocess, which SIGKILLs it at a random moment.

It opens the store, then appends actions and makes transfers as fast as it can, printing a
line only after each call has returned. Whatever it printed must be found after the kill.
Lines: ``READY <actions stored>``, then ``A <seq> <n>`` (action ``seq`` is ``{"n": n}``),
``T <transfer> <amount>`` (signed, as the pot sees it), and ``G <seq> <n> <transfer>`` for an
action and a bank bonus of 1 made in one transaction.
"""

from __future__ import annotations

import sys

from server.store import InsufficientChips, Store
from server.store.urls import is_postgres_url


def main(folder: str) -> None:
    """``folder``: a data folder, or a ``postgresql://`` URL."""
    store = Store(folder) if is_postgres_url(folder) else Store.open(folder)
    if not store.live_tables():
        table = store.next_table_id()
        store.save_table(table, {"stake": 1})
        store.start_game(table, {"game": "prophet", "seed": 0})
        store.ensure_player("p", starting_chips=100)
    (live,) = store.live_tables()
    table = live["id"]
    n = len(live["actions"])
    print("READY", n, flush=True)
    while True:
        seq = store.append_action(table, n % 4, {"type": "play", "n": n})
        print("A", seq, n, flush=True)
        n += 1
        amount = 1 + n % 7
        try:
            number = store.transfer("player:p", "pot:1", amount, "ante", ref=n)
        except InsufficientChips:  # the player ran dry: the pot pays everything back
            amount = -store.balance("pot:1")
            number = store.transfer("pot:1", "player:p", -amount, "payout", ref=n)
        print("T", number, amount, flush=True)
        with store.transaction():
            seq = store.append_action(table, n % 4, {"type": "play", "n": n})
            number = store.transfer("bank", "player:p", 1, "bonus", ref=n)
        print("G", seq, n, number, flush=True)
        n += 1


if __name__ == "__main__":
    main(sys.argv[1])
