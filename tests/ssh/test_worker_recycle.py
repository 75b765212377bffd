"""Issue 43: an app worker that keeps too much memory is recycled, unseen by its players.

Real OpenSSH clients, the real Gambit app in two real worker processes; every wait bounded.
The worker's report after a sweep (SWEPT, which ``test_recycling.py`` checks the worker
sends) is given to the pool here with a figure above the limit: the worker is recycled in the
middle of a deal, its players' apps move to a fresh worker, and they keep their seat, their
screen and their half-typed chat line; then the other worker, whose player sits in the lobby.
"""

from __future__ import annotations

from .conftest import needs_openssh
from .test_app_moves import (
    finish_the_line,
    open_a_table,
    remotes,
    start_with_half_a_line_typed,
    the_same_screen_once,
    wait_until,
    workers_of,
)
from .test_e2e import Player

pytestmark = needs_openssh


def recycle(server, number: int) -> int:
    """Worker ``number`` reports 2 MB kept after a sweep, over a 1 MB limit; its pid."""
    from server.apphost import worker_link as wl
    from server.apphost.recycling import MB, RecycleRule

    def report() -> int:
        pool = server.host.workers
        pool.recycle_rule = RecycleRule(MB, min_age=0.0)
        worker = next(w for w in pool.workers if w.number == number)
        worker.on_frame(0, wl.SWEPT, wl.pack({"rss": 2 * MB, "apps": len(worker.sessions)}))
        return worker.process.pid

    return server.sync(report)


def recycled(server, pid: int, count: int) -> bool:
    pool = server.host.workers
    return server.sync(
        lambda: pool.recycled == count and pid not in pool.pids and len(pool.ready_workers()) == 2
    )


def test_a_recycled_workers_players_keep_their_seat_screen_and_keys(standin_server, tmp_path):
    from .harness import ssh_keygen

    server = standin_server(app_workers=2)
    keys = {n: ssh_keygen(tmp_path / n) for n in ("ada", "bo", "cy", "di")}
    ada, bo, cy, di = everyone = [Player(server, n.title(), key=keys[n]) for n in keys]
    table = [ada, bo, cy]
    try:
        for player in everyone:
            player.enter_lobby()
        number = open_a_table(ada, (bo, cy))
        wait_until(
            lambda: len({workers_of(server)[n] for n in ("Ada", "Bo", "Cy")}) == 1,
            what="the table's apps on one worker",
        )
        # Half a chat line typed by Bo as his worker is recycled.
        before = start_with_half_a_line_typed(ada, bo, cy)
        seen = {p: len(p.term.raw) for p in table}
        numbers = {w: n for w, n in workers_of(server).items()}
        old = numbers["Bo"]

        pid = recycle(server, old)
        finish_the_line(bo, ada)
        wait_until(lambda: recycled(server, pid, 1), what="the old worker gone, a fresh one")
        now = workers_of(server)
        fresh = now["Bo"]
        assert fresh not in numbers.values()
        assert now["Ada"] == now["Cy"] == fresh  # the table's apps moved together
        # One repaint of the same screen, nobody told of an absence.
        the_same_screen_once(bo, (ada, cy), number, before, seen)
        # The hub never saw anyone go: still seated.
        table_id = int(number)
        seated = server.sync(
            lambda: {
                p.name
                for p in server.hub.players.values()
                if server.hub.tables[table_id].seat_of(p.id) is not None
            }
        )
        assert seated >= {"Ada", "Bo", "Cy"}
        bo.press("\x1b")  # Bo's next key: out of the chat line, back at the table
        bo.wait_for(lambda t: "Enter sends" not in t and "Your hand" in t)

        # Then Di's worker, Di in the lobby: the app moves as it is, and Di's next key works.
        # (Di's worker may be the fresh one: where Di started depends on when each came.)
        di_worker = workers_of(server)["Di"]
        pid = recycle(server, di_worker)
        wait_until(lambda: recycled(server, pid, 2), what="Di's worker recycled")
        assert workers_of(server)["Di"] not in (di_worker, *numbers.values())
        assert server.sync(lambda: server.host.workers.lost) == 0
        di.press("n")
        di.wait_for("New table")
        assert remotes(server)["Di"].worker.process.pid != pid
    finally:
        for player in everyone:
            player.close()
