"""Table deltas made once per change (``Shared``/``TableMessage``) are the very deltas the
general comparison makes of the whole messages, for every game, seat and spectator, through
whole games, seat changes, ``left`` and info that changes (or whose objects change after
being sent)."""

from __future__ import annotations

import random

import pytest

from protocol.codec import encode
from protocol.event_log import SentLogs, Shared, TableMessage, expand
from server.engine import get_game

GAMES = [("prophets_gambit", 5, {}), ("prophet", 4, {}), ("fortunes", 4, {})]


@pytest.mark.parametrize(("game", "players", "options"), GAMES)
@pytest.mark.parametrize("seed", [1, 2])
def test_shared_deltas_equal_the_general_ones(game, players, options, seed):
    rng = random.Random(seed)
    state = get_game(game).new_state(players, options, seed=seed)
    readers = [*range(players), None]
    general = {r: SentLogs() for r in readers}
    shared_logs = {r: SentLogs() for r in readers}
    framed = {r: SentLogs() for r in readers}  # frames joined from encoded parts
    # … and from each seat's part made from the last change's when the change left it be
    # (State.private_view_since), as the hub makes them
    since_framed = {r: SentLogs() for r in readers}
    views = None
    kept = 0
    held = {r: None for r in readers}
    seat_of = {r: r for r in readers}
    options_live = {"speed": 1}  # a hub object the info holds, changed after being sent
    last: Shared | None = None
    for step in range(400):
        if state.is_over:
            break
        info = {
            "id": 7,
            "options": options_live,
            "status": "playing",
            "deadlines": {str(s): 1.5 for s in range(players) if rng.random() < 0.2},
            "seats": [{"seat": s, "away": rng.random() < 0.1} for s in range(players)],
        }
        public = state.public_view()
        shared = Shared(info, public, last)
        last = shared
        news = state.public_events_since(views[0]) if views is not None else None
        privates, since = {}, {}
        for seat in {seat_of[r] for r in readers}:
            privates[seat] = state.private_view(seat)
            before = views[1].get(seat) if views is not None else None
            if news is not None and seat not in news[1] and before is not None:
                made = state.private_view_since(seat, before, news[0])
                if made is not None:
                    assert made == privates[seat] and list(made) == list(privates[seat])
                    privates[seat], since[seat] = made, before
                    kept += 1
        views = (state.events_mark(), privates)
        for reader in readers:
            if rng.random() < 0.03:  # the reader left: the next message goes whole
                for logs in (
                    general[reader],
                    shared_logs[reader],
                    framed[reader],
                    since_framed[reader],
                ):
                    assert logs.shrink({"t": "left", "table": 7}) == {"t": "left", "table": 7}
                held[reader] = None
            if reader is not None and rng.random() < 0.02:  # another seat's view now
                seat_of[reader] = rng.randrange(players)
            seat = seat_of[reader]
            private = state.private_view(seat)
            whole = {
                "t": "table",
                "table": 7,
                "info": info,
                "seat": seat,
                "view": {**public, **private},
            }
            fast = TableMessage(7, seat, shared, state.private_view(seat))
            assert fast == whole
            out_general = general[reader].shrink(whole)
            out_shared = shared_logs[reader].shrink(fast)
            assert out_shared == out_general, (step, reader)
            # The frame joined from parts is the very bytes of the delta's encoding.
            assert framed[reader].frame(fast) == encode(out_general), (step, reader)
            if seat not in privates:  # (it changed seats just now)
                privates[seat] = state.private_view(seat)
            made = since_framed[reader].seat_frame(
                7, seat, shared, privates[seat], since.get(seat), news[0] if news else None
            )
            assert made == encode(out_general), (step, reader)
            held[reader] = expand(held[reader], out_shared)
            assert held[reader]["view"] == whole["view"]
            assert held[reader]["info"] == whole["info"]
        if rng.random() < 0.05:
            options_live["speed"] += 1  # after the messages went: the next info differs
        waiting = sorted(state.pending())
        seat = rng.choice(waiting)
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert kept > 50  # (most seats' parts at most moves)
