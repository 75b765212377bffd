"""The strong Prophet's Gambit bot: PIMC over the rest of the deal, playing to win the Reveal.

Each world (see :mod:`.pg_world`) deals the cards this seat has not seen at random; each legal
action is tried in it and the deal is played out to the Reveal by the heuristic bot in every
seat, on the fast deal of :mod:`.pg_sim` (the engine's rules and the heuristic's choices on
integers, about three times the engine's pace: 150–200 worlds a decision, not 40–120). The
result is a win (1) plus a little for a better place (the pot goes to the winner alone, the
place only breaks near-ties). Every legal action is searched; one that trails the leader by
``race_z`` standard errors is dropped (the worlds go to the close ones), and the heuristic's
choice stands unless the best beats it by ``deviate_z`` (docs/benchmarks.md, 2026-12-03 21:45:
free argmax over every action loses to the heuristic even at 400 worlds a decision).
"""

from __future__ import annotations

import random
from typing import Any

from protocol.actions import Action
from server.engine.base import State
from server.engine.prophets_gambit.state import PGState

from ..base import register_bot
from ..prophets_gambit import ProphetsGambitBot, potential, without
from . import pg_sim
from .pg_world import sample_world, shared_candidates
from .search import StrongBot

#: The weight of the place at the Reveal beside the win (0 last … 1 first).
PLACE_WEIGHT = 0.1
#: Card choices searched: the heuristic's best few by the hand they leave (Risks apart);
#: more than a hand holds: every card (the race drops the poor ones).
KEEP_PLAYS = 99
KEEP_RISKS = 99
#: Opponents the rollouts' Execution samples; the heuristic bot samples 60
#: (``EXECUTION_SAMPLES``), and the two differ on purpose. The heuristic decides one real
#: Execution a deal, where 60 cost nothing; a rollout meets one in nearly every world, and a
#: decision plays hundreds. Measured (docs/benchmarks.md, "Strong bots", 2026-12-06): a
#: rollout's kill-or-save with 24 agrees with the heuristic's own in 87 % of Executions, with
#: 60 in 92 % (the heuristic with itself: its own sampling noise), at 53 against 118 us; so
#: 60 cost a quarter of the worlds a decision (55 against 73 at 100 ms of CPU) for a model of
#: the opponents' Execution 4 points closer, and gained nothing at equal worlds (the oracle's
#: paired score -0.010 ± 0.018 a deal); 8 agree in 77 % and cost play (2026-12-04).
ROLLOUT_EXECUTION_SAMPLES = 24
#: Decisions where the best searched action is taken at any lead (no ``deviate_z``): at the
#: Bid the worlds are dealt as the deal was (uniformly, an earlier bid by the heuristic's
#: rule), so the search's estimates carry no bias for the rule to guard against.
FREE_KINDS = ("bid",)
#: Whether a decision's worlds share candidate hands drawn once (more worlds in the budget).
SHARE_CANDIDATES = True
#: Whether the rollouts play on the fast deal (:mod:`.pg_sim`) instead of the engine.
FAST = True


@register_bot("prophets_gambit", "strong")
class StrongProphetsGambitBot(StrongBot):
    """Samples the hidden cards, plays each choice out, keeps the one that wins most."""

    game_name = "prophets_gambit"
    deviate_z = 1.0
    race_z = 2.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.policy = ProphetsGambitBot(self.rng.getrandbits(32))
        self.policy.execution_samples = ROLLOUT_EXECUTION_SAMPLES
        #: The view of the decision being searched and its opponents' candidate hands.
        self._shared_view: dict[str, Any] | None = None
        self._shared: dict[int, Any] = {}
        #: The kind of the decision being searched (see ``FREE_KINDS``).
        self._kind: str | None = None

    def choose(self, view: dict[str, Any]) -> Action:
        self._kind = (view.get("ask") or {}).get("kind")
        return super().choose(view)

    def _beats(self, mine: list[float], theirs: list[float]) -> bool:
        return self._kind in FREE_KINDS or super()._beats(mine, theirs)

    def candidates(self, view: dict[str, Any], legal: list[dict[str, Any]]) -> list[int]:
        """Card choices: the few that leave the best potential, Plays and Risks apart."""
        if "card" not in legal[0] or view["ask"]["kind"] == "darklord_pick":
            return list(range(len(legal)))
        hand = view["hand"]
        fixed = ProphetsGambitBot._fixed(view)
        kind = view["ask"]["kind"]

        def rank(i: int) -> tuple:
            card = legal[i]["card"]
            left = [*hand, card] if kind == "ghost" else without(hand, card)
            return potential(left, fixed)

        keep: list[int] = []
        for kind_of, most in (("risk", KEEP_RISKS), (None, KEEP_PLAYS)):
            group = [i for i, a in enumerate(legal) if (a["type"] == "risk") == (kind_of == "risk")]
            keep += sorted(group, key=rank, reverse=True)[:most]
        return sorted(keep)

    def sample_world(self, view: dict[str, Any], rng: random.Random) -> PGState | None:
        if SHARE_CANDIDATES and self._shared_view is not view:
            # Weighing a candidate hand costs more than a rollout: once per decision.
            self._shared_view, self._shared = view, shared_candidates(view, rng)
        shared = self._shared if SHARE_CANDIDATES else None
        return sample_world(self.game, view, rng, shared, engine=not FAST)

    def try_actions(
        self, world: Any, seat: int, actions: list[Action], rollout_seed: int
    ) -> list[float]:
        if not FAST:
            return super().try_actions(world, seat, actions, rollout_seed)
        base = pg_sim.Sim.of_state(world, self.rng)
        row = []
        for action in actions:
            trial = base.copy()
            trial.rng = trial.deal_rng = random.Random(rollout_seed)
            trial.apply(seat, pg_sim.action_of(action))
            trial.play_out(ROLLOUT_EXECUTION_SAMPLES)
            row.append(trial.value(seat, PLACE_WEIGHT))
        return row

    def rollout(self, world: State, seat: int, rng: random.Random) -> float:
        state: Any = world
        policy = self.policy
        policy.rng = rng
        while state.result is None:
            who = min(s for s, a in enumerate(state.asks) if a is not None)
            legal = state.legal_actions(who)
            if len(legal) == 1:
                action = legal[0]
            else:
                listed = [a.to_wire() for a in legal]
                action = legal[listed.index(policy.decide(_light_view(state, who, listed)))]
            state._apply(who, action)
        n = state.num_players
        result = state.result
        won = 1.0 if result["winners"] == [seat] else 0.0
        return won + PLACE_WEIGHT * result["scores"][seat] / (n - 1)


def _light_view(state: Any, seat: int, legal: list[dict[str, Any]]) -> dict[str, Any]:
    """The view fields the heuristic bot reads, straight from the world (a rollout plays a
    sampled world, so nothing here is hidden from anyone; a whole view costs a third of a
    rollout). Every card in front of a seat is one seen event."""
    kind, info = state.asks[seat]
    return {
        "seat": seat,
        "players": state.num_players,
        "legal": legal,
        "ask": {"kind": kind, **info},
        "hand": state.hands[seat],
        "fate": state.fates[seat],
        "focus": state.focus,
        "killed": state.killed,
        "discard": state.discard,
        "open_fates": {},
        "events": [{"e": "bids", "cards": [c for st in state.shown for c in st]}],
        "showing": [st[-1] if st else None for st in state.shown],
        "hand_sizes": [len(h) for h in state.hands],
    }
