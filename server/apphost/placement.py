"""Which app worker a table's apps live in: the rule, apart from the processes it moves.

Apps at one table draw much the same (the seats, the trick, the log, the table's lines), and
what they draw alike is drawn once per change per worker; so a table's apps should share a
worker. The rule (:meth:`TablePlacement.home`):

* A player's app starts on the least busy worker, and stays there while it shows only the
  lobby (or any screen but a table's).
* When it shows a table (the player sat down, or watches), the table's *home* is the worker
  that holds most of that table's other apps (ties: the less busy). A table none of whose
  other apps runs anywhere yet (a new table) gets the least busy worker as its home (its
  own, when it is the least busy once this app is counted out: no move for nothing), so
  that tables, which grow, start where there is room.
* The app moves to the home unless the home is *far fuller* than the least busy worker: more
  than ``SLACK`` apps (at least ``MIN_SLACK``, else ``SLACK_SHARE`` of the mean per worker)
  above it. Then the table's home is the least busy worker instead, and the table's other
  apps follow it there (``workers.py`` asks the rule for each of them): moving a table off a
  far fuller worker makes the workers more level, never less. New players keep going to
  the least busy worker, and new tables start there, which keeps the workers level overall.
* An app is placed when the table it shows changes, and its table's other apps with it; not
  again when it has moved (its new app shows the same table), so no app goes back and forth.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, Generic, Protocol, TypeVar

#: A worker may hold this many apps more than the least busy one and still take a table's...
MIN_SLACK = 4
#: ... or this share of the mean number of apps per worker, whichever is more.
SLACK_SHARE = 0.25


class Placed(Protocol):
    """An app, as the rule sees it: where it runs (or is going), and the table it shows."""

    table: int | None

    def place_now(self) -> object:
        """The worker it runs on, or the one it is moving to."""


A = TypeVar("A", bound=Placed)


class TablePlacement(Generic[A]):
    """Each table's apps (by the table they show), and the rule above."""

    def __init__(self, load: Callable[[object], int]) -> None:
        #: The number of apps a worker runs or is about to.
        self.load = load
        self.tables: dict[int, set[A]] = {}

    def shows(self, app: A, table: int | None) -> None:
        """``app`` shows ``table`` now (None: no table)."""
        self.forget(app)
        app.table = table
        if table is not None:
            self.tables.setdefault(table, set()).add(app)

    def forget(self, app: A) -> None:
        """``app`` has ended (or shows another table)."""
        if app.table is None:
            return
        apps = self.tables.get(app.table)
        if apps is not None:
            apps.discard(app)
            if not apps:
                del self.tables[app.table]

    def home(self, app: A, workers: Sequence[Any]) -> Any:
        """Where ``app`` should run now, of ``workers`` (those taking apps): see the module
        docstring. Its own worker when it shows no table."""
        here = app.place_now()
        ready = workers
        if app.table is None or not ready:
            return here
        loads = {id(w): self.load(w) for w in ready}
        least = min(loads.values())
        slack = max(MIN_SLACK, SLACK_SHARE * sum(loads.values()) / len(ready))

        def far_fuller(worker: object) -> bool:
            extra = 0 if worker is here else 1
            return loads.get(id(worker), 0) + extra > least + slack

        others = Counter(id(a.place_now()) for a in self.tables.get(app.table, ()) if a is not app)
        held = [w for w in ready if others[id(w)]]
        if not held:  # a new table (or its other apps' workers are gone)
            lightest = min(ready, key=lambda w: loads[id(w)])
            if here in ready and loads[id(here)] - 1 <= loads[id(lightest)]:
                return here
            return lightest
        home = max(held, key=lambda w: (others[id(w)], -loads[id(w)]))
        if far_fuller(home):
            return min(ready, key=lambda w: (loads[id(w)], w is not here))
        return home

    def with_their_table(self) -> tuple[int, int]:
        """(apps showing a table, those of them on the worker holding most of their table's
        apps): the load benchmark's measure of how well tables are kept together."""
        total = together = 0
        for apps in self.tables.values():
            counts = Counter(id(a.place_now()) for a in apps)
            total += len(apps)
            together += max(counts.values())
        return total, together
