"""What ``--metrics`` costs the event loop per action accepted, with many sessions.

    python bench/metrics_action.py [--sessions 500] [--actions 20000] [--runs 5] [--cpu-clock]

Not a timed test. The metrics' hook (``Metrics._action``, server/metrics.py) as ``gambit
serve --metrics`` calls it at every action: ``--sessions`` SSH sessions in the host's
``LiveSessions``, one player each, four to a table; each action at a table in turn, and the
frames of its seated players' screens after each round of the tables (``Metrics._frame``),
as the screens draw it. It built a map of every session at every action (issue 43's soak:
the loop held at 500 sessions); it looks each seated player's sessions up in an index now.

Prints, as its last line, one JSON object with the medians over ``--runs`` of
``action_us`` (per ``_action`` call) and ``frame_us`` (per ``_frame`` call), and the
``observed`` latencies of the last run (one per action: the figures out are whole).
``--cpu-clock``: the thread's CPU time (``time.thread_time``), not the wall clock: steadier
on a shared machine.

To compare two trees, run this file with ``PYTHONPATH`` set to the other tree.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

# Last on the path: a tree named by PYTHONPATH (or installed) is the one measured.
sys.path.append(str(Path(__file__).resolve().parents[1]))

from server.metrics import Metrics
from server.ssh.live_sessions import LiveSessions

SEATS = 4


class Session:
    """An SSH game session as the host and the metrics see it."""

    def __init__(self, number: int) -> None:
        self.address = f"198.51.100.{number % 250}"
        self.hub_conn: Any = object()
        self.last_input = 0.0
        self.task: asyncio.Task[None] | None = None
        self.channel = None

    def stop(self, goodbye: str | None = None) -> None:
        pass


def one_run(sessions: int, actions: int, clock: Any) -> dict[str, float]:
    live = LiveSessions()
    hub = SimpleNamespace(
        players={}, store=SimpleNamespace(on_commit=None), observe_actions=lambda hook: list
    )
    host = SimpleNamespace(sessions=live, frame_observers=[])
    metrics = Metrics(hub, host)  # type: ignore[arg-type]  # the parts the metrics read
    observed: list[float] = []
    metrics.action_latency = SimpleNamespace(observe=observed.append)  # type: ignore[assignment]
    seated = []
    for number in range(sessions):
        session = Session(number)
        live.add(session)
        serving = getattr(live, "serving", None)  # (the index: not in the old tree)
        if serving is not None:
            serving(session)
        name = f"p{number}"
        hub.players[name] = SimpleNamespace(sessions=[SimpleNamespace(conn=session.hub_conn)])
        seated.append((name, session))
    tables = [
        (
            SimpleNamespace(seats=[SimpleNamespace(player=name) for name, _ in group]),
            [session for _, session in group],
        )
        for group in (seated[i : i + SEATS] for i in range(0, len(seated), SEATS))
    ]
    action_time = frame_time = 0.0
    done = frames = 0
    while done < actions:
        rounds = tables[: actions - done]
        start = clock()
        for table, _ in rounds:
            metrics._action(table, 0, None)
        action_time += clock() - start
        start = clock()
        for _, screens in rounds:
            for session in screens:
                metrics._frame(session, 100)
        frame_time += clock() - start
        done += len(rounds)
        frames += sum(len(screens) for _, screens in rounds)
    return {
        "action_us": action_time / done * 1e6,
        "frame_us": frame_time / frames * 1e6,
        "observed": len(observed),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=500)
    parser.add_argument("--actions", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cpu-clock", action="store_true", help="thread CPU time, not wall")
    args = parser.parse_args()
    clock = time.thread_time if args.cpu_clock else time.perf_counter
    runs = []
    for run in range(args.runs):
        figures = one_run(args.sessions, args.actions, clock)
        runs.append(figures)
        print(
            f"run {run + 1}: {figures['action_us']:.2f} us per action, "
            f"{figures['frame_us']:.2f} us per frame",
            file=sys.stderr,
        )
    print(
        json.dumps(
            {
                "sessions": args.sessions,
                "actions": args.actions,
                "runs": args.runs,
                "clock": "cpu" if args.cpu_clock else "wall",
                "action_us": round(statistics.median(r["action_us"] for r in runs), 3),
                "frame_us": round(statistics.median(r["frame_us"] for r in runs), 3),
                "observed": runs[-1]["observed"],
            }
        )
    )


if __name__ == "__main__":
    main()
