"""The heuristic Prophet's Gambit bot: keep the three cards that make the best final hand.

At the Reveal a seat's hand is normally its last three cards plus its Fate and the Focus, so
the bot rates a hand by its *potential*: the best of every three-card subset together with
its Fate and the Focus (with the hand evaluator of the engine). Every decision that removes a
card removes the one whose loss costs least; draws are taken whenever offered, because a
draw-then-discard can only raise the potential. Where the future is unknown (a new Fate, the
Play bonus's draw, the opponents' hands at the Execution) it averages over a few random
samples of the cards it has not seen. It sees only its view.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from protocol.cards import TAROKKA_COMMON, tarokka_number
from server.bots.base import Bot, register_bot
from server.engine.prophets_gambit.hands import ONE_PAIR, best_hand, hand_key

KEEP = 3
SAMPLES = 8
#: Opponents sampled at the Execution: one decision a deal, so many cost nothing (the strong
#: bot's rollouts, which meet one a world, sample fewer: ``ROLLOUT_EXECUTION_SAMPLES`` says why).
EXECUTION_SAMPLES = 60


def score(key: tuple[int, ...]) -> int:
    """A hand key as one number with the same order (every key entry is at most 10)."""
    total = 0
    for i, v in enumerate(key):
        total += v * 11 ** (5 - i)
    return total


#: Potentials already computed (a pure function of the cards; the strong bot's rollouts ask
#: the same ones many times: every candidate action meets the same worlds). Kept by a string
#: (the hand's cards sorted, then the fixed ones): full, 32,768 entries of ``(frozenset,
#: tuple)`` keys held 17 MB of a server's memory, as strings 3 MB (``docs/benchmarks.md``).
_POTENTIALS: dict[str, tuple[int, ...]] = {}
_POTENTIALS_MAX = 1 << 15


def potential(hand: list[str], fixed: list[str]) -> tuple[int, ...]:
    """The best final hand reachable by keeping three of ``hand`` beside ``fixed`` cards."""
    key = " ".join(sorted(hand)) + "|" + " ".join(fixed)
    found = _POTENTIALS.get(key)
    if found is not None:
        return found
    if len(hand) <= KEEP or len(fixed) + KEEP < 4:
        found = best_hand(hand + fixed, 5)[0]
    else:
        found = max(hand_key([*combo, *fixed]) for combo in combinations(hand, KEEP))
    if len(_POTENTIALS) >= _POTENTIALS_MAX:
        _POTENTIALS.clear()
    _POTENTIALS[key] = found
    return found


def without(hand: list[str], card: str) -> list[str]:
    return [c for c in hand if c != card]


@register_bot("prophets_gambit", "heuristic")
class ProphetsGambitBot(Bot):
    """Plays for the best expected final hand; see the module docstring."""

    #: Opponents sampled at the Execution (the strong bot's rollouts use fewer).
    execution_samples = EXECUTION_SAMPLES

    def decide(self, view: dict[str, Any]) -> dict[str, Any]:
        legal = view["legal"]
        if len(legal) == 1:
            return legal[0]
        kind = view["ask"]["kind"]
        method = getattr(self, "_" + kind, None)
        return method(view, legal) if method else self.rng.choice(legal)

    # --- what the bot knows -----------------------------------------------------------------

    @staticmethod
    def _fixed(view: dict[str, Any]) -> list[str]:
        fixed = [view["fate"]] if view.get("fate") else []
        if view.get("focus"):
            fixed.append(view["focus"])
        return fixed

    @staticmethod
    def _unseen(view: dict[str, Any]) -> list[str]:
        seen = set(view.get("hand", ()))
        seen.update(view["discard"])
        seen.update(view["open_fates"].values())
        seen.update((view.get("glimpse") or {}).values())
        for code in (view.get("fate"), view.get("focus"), view.get("killed")):
            if code:
                seen.add(code)
        for ev in view["events"]:
            if ev["e"] in ("play", "bids"):
                seen.update(ev.get("cards") or [ev.get("card")])
        return [c for c in TAROKKA_COMMON if c not in seen]

    def _keep_best(self, view: dict[str, Any], legal: list[dict]) -> dict[str, Any]:
        """The card action whose removal leaves the best potential (lowest number on ties)."""
        hand, fixed = view["hand"], self._fixed(view)

        def value(action: dict) -> tuple:
            card = action["card"]
            return (potential(without(hand, card), fixed), -(tarokka_number(card) or 10))

        return max(legal, key=value)

    # --- decisions --------------------------------------------------------------------------

    def _bid(self, view: dict[str, Any], legal: list[dict]) -> dict[str, Any]:
        # A high showing card wins the Fate replacement, the first turn and the Execution.
        hand, fixed = view["hand"], self._fixed(view)
        return max(
            legal,
            key=lambda a: (
                potential(without(hand, a["card"]), fixed),
                tarokka_number(a["card"]) or 0,
            ),
        )

    def _fate(self, view: dict[str, Any], legal: list[dict]) -> dict[str, Any]:
        hand, focus = view["hand"], [view["focus"]] if view["focus"] else []
        now = score(potential(hand, [view["fate"], *focus]))
        pool = self._unseen(view)
        sample = self.rng.sample(pool, min(SAMPLES, len(pool)))
        better = sum(score(potential(hand, [c, *focus])) > now for c in sample)
        return {"type": "replace"} if better * 2 > len(sample) else {"type": "keep"}

    def _turn(self, view: dict[str, Any], legal: list[dict]) -> dict[str, Any]:
        hand, fixed = view["hand"], self._fixed(view)
        seat, n = view["seat"], view["players"]
        right = tarokka_number(view["showing"][(seat - 1) % n] or "SM")
        best_play, best_value = None, None
        for action in legal:
            if action["type"] != "play":
                continue
            card = action["card"]
            num = tarokka_number(card)
            bonus = num is None or (right is not None and num < right)
            value = (potential(without(hand, card), fixed), bonus, -(num or 10))
            if best_value is None or value > best_value:
                best_play, best_value = action, value
        assert best_play is not None and best_value is not None  # (a turn's hand is not empty)
        risks = [a for a in legal if a["type"] == "risk"]
        if risks and not best_value[1] and best_value[0][0] <= ONE_PAIR:
            return self._keep_best(view, risks)
        return best_play

    def _bonus(self, view: dict[str, Any], legal: list[dict]) -> dict[str, Any]:
        return {"type": "draw"}

    _discard = _beast = _donjon = _raven = _tempter = _forced = _keep_best

    def _ghost(self, view: dict[str, Any], legal: list[dict]) -> dict[str, Any]:
        hand, fixed = view["hand"], self._fixed(view)
        return max(legal, key=lambda a: potential([*hand, a["card"]], fixed))

    def _darklord(self, view: dict[str, Any], legal: list[dict]) -> dict[str, Any]:
        # The biggest hand has the most room to be good; otherwise any target serves.
        sizes = view["hand_sizes"]
        return max(legal, key=lambda a: (sizes[a["seat"]], self.rng.random()))

    _tempter_target = _marionette = _darklord

    def _darklord_pick(self, view: dict[str, Any], legal: list[dict]) -> dict[str, Any]:
        hand = view["ask"]["hand"]
        focus = [view["focus"]] if view["focus"] else []
        return min(legal, key=lambda a: best_hand([*without(hand, a["card"]), *focus], 5)[0])

    def _marionette_order(self, view: dict[str, Any], legal: list[dict]) -> dict[str, Any]:
        # Their highest number is the least likely to be lower than their right's: no bonus.
        return {"type": "highest"}

    def _execution(self, view: dict[str, Any], legal: list[dict]) -> dict[str, Any]:
        """Kill the Focus when that wins against more sampled opponents than saving it.

        Both options meet the same sampled opponents (a Fate and three cards from the unseen
        ones), so the comparison measures the Focus's effect, not the sampling noise."""
        hand, fate, focus = view["hand"], view["fate"], view["focus"]
        mine_save = best_hand([*hand, fate, focus], 5)[0]
        mine_kill = best_hand([*hand, fate], 5)[0]
        pool = self._unseen(view)
        size = min(KEEP + 1, len(pool))
        if size < 1:
            return {"type": "save"}
        wins_save = wins_kill = 0
        for _ in range(self.execution_samples):
            other = self.rng.sample(pool, size)
            wins_save += mine_save > best_hand([*other, focus], 5)[0]
            wins_kill += mine_kill > best_hand(other, 5)[0]
        return {"type": "kill"} if wins_kill > wins_save else {"type": "save"}
