"""Issue 39: the rule that keeps a table's apps in one worker, and the workers level."""

from __future__ import annotations

from server.apphost.placement import MIN_SLACK, TablePlacement


class Worker:
    def __init__(self, apps: int) -> None:
        self.apps = apps


class App:
    def __init__(self, worker: Worker) -> None:
        self.worker = worker
        self.table: int | None = None

    def place_now(self) -> Worker:
        return self.worker


def rule() -> TablePlacement[App]:
    return TablePlacement(lambda worker: worker.apps)  # type: ignore[attr-defined]  # a Worker


def test_an_app_goes_where_most_of_its_table_is():
    one, two = Worker(10), Worker(10)
    placement = rule()
    for worker in (one, one, two):
        placement.shows(App(worker), 7)
    newcomer = App(two)
    placement.shows(newcomer, 7)
    assert placement.home(newcomer, [one, two]) is one
    assert placement.with_their_table() == (4, 2)


def test_a_lobby_player_stays_and_a_new_table_starts_on_the_least_busy_worker():
    one, two = Worker(10), Worker(11)
    placement = rule()
    alone = App(two)
    assert placement.home(alone, [one, two]) is two  # the lobby only
    placement.shows(alone, 3)
    assert placement.home(alone, [one, two]) is two  # 10 others here, as many there: stays
    two.apps = 12
    assert placement.home(alone, [one, two]) is one  # a new table goes where there is room


def test_a_far_fuller_worker_takes_no_more_of_its_tables():
    full, light = Worker(40), Worker(10)
    placement = rule()
    for _ in range(4):
        placement.shows(App(full), 1)
    newcomer = App(light)
    placement.shows(newcomer, 1)
    # The table's home is the least busy worker then (its other apps follow: workers.py).
    assert placement.home(newcomer, [full, light]) is light
    assert all(placement.home(app, [full, light]) is light for app in placement.tables[1])
    # A little fuller is fine: the table stays together.
    full.apps = light.apps + MIN_SLACK - 1
    assert placement.home(newcomer, [full, light]) is full
