"""Determinized Monte Carlo (PIMC, as GIB plays bridge): the search every strong bot shares.

A strong bot sees only its seat's view. For each decision it samples *worlds* — complete
engine states that agree with everything the seat has seen (the game's own module builds them
with the engine's stacked-deck constructor and replays what happened; Prophet's Gambit, whose
hidden moves cannot be replayed, sets a fresh deal's places to the view's) — and, in every
world, tries each candidate action and plays the rest out on the world with the heuristic bot
in every seat (the rollout policy). Every action meets the same worlds and the same random
numbers, so the comparison measures the action, not the luck of the sample. The heuristic's
own choice stands unless another beats it by ``deviate_z`` standard errors: a few dozen worlds
find a "better" action by luck alone, and such deviations lost more than they won. A game may
race the actions (``race_z``): one trailing the leader by that many standard errors is tried
no more, so the worlds left go to the close ones. A game with a fast deal of its own plays
the rollouts there (:meth:`StrongBot.try_actions`).

The budget is time (``think_ms``, the server's ``--bot-think-ms``) or, for tests and
benchmarks that must repeat exactly, a number of worlds (``iterations``): then the choice
depends only on the seed and the view.
"""

from __future__ import annotations

import math
import random
import time
from abc import abstractmethod
from collections.abc import Sequence
from typing import Any

from protocol.actions import Action, action_from_wire
from server.engine import get_game
from server.engine.base import State

from ..base import Bot, make_bot

#: The default time a strong bot thinks per decision (``--bot-think-ms``): the smallest of
#: 50, 100 and 200 ms whose strength in every game is within the 95 % interval of the 200 ms
#: figure (docs/benchmarks.md, "Strong bots", 2026-12-07: issue 45 item 3); a strong bot
#: stands in for every player whose time runs out, so on a busy server this is real CPU.
DEFAULT_THINK_MS = 50.0
#: Worlds before the search may stop early because one action is clearly best.
MIN_WORLDS = 12
#: How many standard errors ahead of every other action the best one must be to stop early.
CLEAR_LEAD = 3.0
#: Worlds before the first race (``race_z``), and how often it is run after that.
RACE_FIRST = 16
RACE_EVERY = 8
#: Failed samples (a world that cannot reproduce the view) before giving up on a decision.
MAX_FAILURES = 40


def paired(mine: Sequence[float | None], theirs: Sequence[float | None]) -> tuple[float, float]:
    """Mean and standard error of the paired difference ``mine - theirs`` over the worlds
    both actions met (None: one was not played out in that world); the error is infinite
    below two worlds."""
    diffs = [a - b for a, b in zip(mine, theirs, strict=True) if a is not None and b is not None]
    n = len(diffs)
    if not n:
        return 0.0, math.inf
    mean = sum(diffs) / n
    if n < 2:
        return mean, math.inf
    var = sum((x - mean) ** 2 for x in diffs) / (n - 1)
    return mean, math.sqrt(var / n)


def mean_met(values: Sequence[float | None]) -> float:
    """The mean over the worlds an action met (None: not played out there)."""
    met = [v for v in values if v is not None]
    return sum(met) / len(met) if met else -math.inf


def race(
    alive: list[int],
    values: Sequence[Sequence[float | None]],
    anchor: int | None,
    z: float,
    first: int = 0,
) -> list[int]:
    """The actions of ``alive`` not trailing the leader by ``z`` standard errors of the
    paired difference: never the leader, nor the heuristic's (``anchor``, which the winner
    must beat in the end), nor one met in fewer than ``first`` worlds (it joined late)."""
    lead = max(alive, key=lambda i: mean_met(values[i]))
    keep = []
    for i in alive:
        if i in (lead, anchor) or sum(v is not None for v in values[i]) < first:
            keep.append(i)
            continue
        mean, se = paired(values[i], values[lead])
        if mean >= -z * se:
            keep.append(i)
    return keep


class StrongBot(Bot):
    """PIMC over sampled worlds; subclasses say how to sample, roll out and score a world."""

    game_name = ""
    #: Standard errors by which a searched action must beat the heuristic's (0: any lead).
    deviate_z = 0.0
    #: Standard errors by which an action may trail the leader before it is searched no more
    #: (0: every action meets every world).
    race_z = 0.0
    #: The clock the budget is measured on: wall time; a benchmark on a loaded machine may
    #: set ``time.process_time`` (the process's own CPU time, as on an unloaded core).
    clock = staticmethod(time.perf_counter)

    def __init__(
        self,
        seed: int | str = 0,
        think_ms: float | None = None,
        iterations: int | None = None,
    ) -> None:
        super().__init__(seed)
        self.think_ms = DEFAULT_THINK_MS if think_ms is None else float(think_ms)
        self.iterations = iterations
        self.game = get_game(self.game_name)
        self.fallback = make_bot(self.game_name, "heuristic", seed)
        #: Worlds searched by the last decision (0: the heuristic decided), for tests.
        self.last_worlds = 0
        #: The last decision's mean result of each searched action, by its index in the
        #: view's legal list (empty: not searched), for analyses (``bench/pg_oracle.py``).
        self.last_means: dict[int, float] = {}

    # --- what each game provides -----------------------------------------------------------

    def searches(self, view: dict[str, Any]) -> bool:
        """Whether this decision is searched; others go to the heuristic bot."""
        return True

    def candidates(self, view: dict[str, Any], legal: list[dict[str, Any]]) -> list[int]:
        """Indexes of the legal actions worth searching (all by default); a game may drop
        the ones its heuristic ranks far down, so the time goes to the close choices."""
        return list(range(len(legal)))

    @abstractmethod
    def sample_world(self, view: dict[str, Any], rng: random.Random) -> State | None:
        """A state consistent with ``view`` (None: this sample failed; another is drawn)."""

    @abstractmethod
    def rollout(self, world: State, seat: int, rng: random.Random) -> float:
        """Play ``world`` on to the point that decides ``seat``'s result; return that result."""

    def try_actions(
        self, world: State, seat: int, actions: list[Action], rollout_seed: int
    ) -> list[float]:
        """Each action taken in a copy of ``world`` and played out (:meth:`rollout`, its
        random numbers seeded by ``rollout_seed``): ``seat``'s results. A game with a fast
        deal of its own plays them there instead of on the engine."""
        snap = world.snapshot()
        row = []
        for action in actions:
            trial = self.game.restore(snap)
            trial.apply(seat, action)
            row.append(self.rollout(trial, seat, random.Random(rollout_seed)))
        return row

    # --- the search ------------------------------------------------------------------------

    def decide(self, view: dict[str, Any]) -> dict[str, Any]:
        return self.choose(view).to_wire()

    def choose(self, view: dict[str, Any]) -> Action:
        listed = view["legal"]
        legal = [action_from_wire(a) for a in listed]
        self.last_worlds = 0
        self.last_means = {}
        if len(legal) == 1:
            return legal[0]
        start = self.clock()  # the budget counts the heuristic's and the candidates' time
        prior = self.fallback.choose(view)
        if not self.searches(view):
            return prior
        seat = view["seat"]
        keep = self.candidates(view, listed)
        if prior in legal and legal.index(prior) not in keep:
            keep = sorted([*keep, legal.index(prior)])
        if len(keep) == 1:
            return legal[keep[0]]
        legal = [legal[i] for i in keep]
        deadline = None if self.iterations is not None else start + self.think_ms / 1000
        values: list[list[float]] = [[] for _ in legal]
        anchor = legal.index(prior) if prior in legal else None
        alive = list(range(len(legal)))  # the actions still searched (see ``race_z``)
        failures = worlds = 0
        while True:
            world = self.sample_world(view, self.rng)
            if world is None:
                failures += 1
                if failures >= MAX_FAILURES or (deadline and self.clock() > deadline):
                    break
                continue
            # Every action's rollout draws the same random numbers (common random numbers):
            # the rollouts then differ by the action more than by luck.
            row = self.try_actions(world, seat, [legal[i] for i in alive], self.rng.getrandbits(32))
            for i, value in zip(alive, row, strict=True):
                values[i].append(value)
            worlds += 1
            if self.race_z and worlds >= RACE_FIRST and worlds % RACE_EVERY == 0:
                alive = self._race(alive, values, anchor)
            if self.iterations is not None:
                if worlds >= self.iterations:
                    break
            elif len(alive) == 1 or self._clear([values[i] for i in alive]):
                break
            else:
                # Stop before a world that would end past the deadline (judged by the mean
                # world so far): a loaded core otherwise finishes the last world late.
                now = self.clock()
                assert deadline is not None  # (a budget in time, not in worlds)
                if now + (now - start) / worlds >= deadline:
                    break
        self.last_worlds = worlds
        self.last_means = {keep[i]: sum(v) / len(v) for i, v in enumerate(values) if v}
        if not worlds:
            return prior
        means = {i: sum(values[i]) / len(values[i]) for i in alive}
        top = max(means.values())
        # Ties (within a hair) go to the heuristic's choice, else to the first listed.
        best = [i for i in alive if means[i] >= top - 1e-9]
        if anchor is not None and (
            anchor in best or not self._beats(values[best[0]], values[anchor])
        ):
            return prior
        return legal[best[0]]

    def _race(
        self, alive: list[int], values: Sequence[Sequence[float | None]], anchor: int | None
    ) -> list[int]:
        """:func:`race` at ``race_z``: the worlds left go to the close ones."""
        return race(alive, values, anchor, self.race_z)

    def _beats(self, mine: list[float], theirs: list[float]) -> bool:
        """Whether ``mine`` leads ``theirs`` by ``deviate_z`` standard errors of the paired
        difference: leaving the heuristic's choice needs evidence, since a search of a few
        dozen worlds finds a "better" action by luck alone."""
        if self.deviate_z <= 0:
            return True
        worlds = len(mine)
        if worlds < 2:
            return False
        mean, se = paired(mine, theirs)
        return mean > self.deviate_z * se

    @staticmethod
    def _clear(values: list[list[float]]) -> bool:
        """One action leads every other by ``CLEAR_LEAD`` standard errors of the paired
        difference (checked every few worlds: the search may stop early)."""
        worlds = len(values[0])
        if worlds < MIN_WORLDS or worlds % 4:
            return False
        means = [sum(v) / worlds for v in values]
        best = max(range(len(values)), key=means.__getitem__)
        for i, other in enumerate(values):
            if i == best:
                continue
            mean, se = paired(values[best], other)
            if se == 0:
                if mean <= 0:
                    return False
                continue
            if mean < CLEAR_LEAD * se:
                return False
        return True
