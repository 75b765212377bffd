"""When an app worker is recycled: the rule, apart from the processes it moves.

A public server runs for weeks, and a worker's resident memory creeps up as players come and
go: the process's bounded caches of shared lines and strips fill (``bench/worker_churn.py``,
docs/benchmarks.md, "Soak": a rise that slows wave after wave), and whatever no test has found
yet would add to it. The well-known guard (gunicorn's
``max_requests``, uWSGI's ``reload-on-rss``, Celery's ``max-tasks-per-child``) is to replace
a process before that matters. Here a worker is recycled when its memory *right after a
sweep* (``server/gc_freeze.py``: the garbage of ended apps freed, the rest frozen again) is
above ``--worker-max-rss``: that figure is what the worker keeps, not the garbage of the
last minutes. Its apps move to a fresh worker through the moves' line (``move_pacing.py``,
unseen by their players: ``workers.py``), and it exits once empty.

Not too often: at most one worker is being recycled at a time (one whose last apps could not
be handed over, given up on after a few tries, only waits for them to end and does not
count; ``workers.py``), and a worker younger than
``MIN_AGE`` is not (if its apps alone need more than the limit, the fresh worker would cross
it at once too: then workers are recycled at most once per ``MIN_AGE``, and the log says
so).
"""

from __future__ import annotations

from dataclasses import dataclass

#: A worker is not recycled before it has run this long (s).
MIN_AGE = 600.0
MB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class RecycleRule:
    """``max_rss``: bytes of resident memory right after a sweep above which a worker is
    recycled (0: never); ``min_age``: seconds a worker runs at least."""

    max_rss: int = 0
    min_age: float = MIN_AGE

    def due(self, rss_after_sweep: int | None, age: float, another_recycling: bool) -> bool:
        """Whether a worker that has just swept, with ``rss_after_sweep`` bytes resident, is
        to be recycled now."""
        return (
            self.max_rss > 0
            and rss_after_sweep is not None
            and rss_after_sweep > self.max_rss
            and age >= self.min_age
            and not another_recycling
        )
