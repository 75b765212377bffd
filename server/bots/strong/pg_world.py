"""A Prophet's Gambit world: the deal as one seat's view says it may be, hidden cards sampled.

Prophet's Gambit moves hidden cards in ways a view cannot replay (draws after a reshuffle by
the table's own seed, the Raven's passes, the Tempter's blind draw), so a world is not the
deal replayed from its start. It is a fresh deal made by the engine's own constructor (so
every attribute the rules read exists, with its type), whose places are then set to what the
view shows now: the Focus, the piles, the stacks in front, the phase and
whose turn it is; the hidden cards whose place the seat knows stay there (:mod:`.pg_known`)
and the others are dealt at random from the ones it has not seen, each place getting as many
as the view counts, and no Fate a card the seat saw elsewhere since that Fate came to its
seat (:func:`.pg_known.ruled_out_fates`). Every rule then runs in the engine.
"""

from __future__ import annotations

import math
import random
from types import SimpleNamespace
from typing import Any

from protocol.cards import TAROKKA_COMMON, TAROKKA_HIGH, tarokka_number
from server.engine.prophets_gambit.state import PGState

from ..prophets_gambit import potential, without
from . import pg_inference
from .pg_inference import (
    FateChoice,
    Signal,
    choices,
    fate_choices,
    fate_likelihood,
    misfits,
    signal_misses,
    signals,
)
from .pg_known import known_places, ruled_out_fates
from .pg_replay import Step, replay_misses, timeline

#: Candidate hands drawn per opponent, and how much each choice they contradict counts.
CANDIDATES = 20
MISFIT_WEIGHT = 6.0
#: How much each Play-or-Risk choice a candidate contradicts counts (see ``signals``).
SIGNAL_WEIGHT = 6.0
#: Contradictions past which a candidate's weight is not refined (it is about e^-18 already).
MAX_MISSES = 3
#: Candidate hands per opponent drawn once per decision and shared by its worlds.
SHARED_CANDIDATES = 64
#: Whether an opponent's choices are replayed by the heuristic's rules (:mod:`.pg_replay`)
#: where its history allows, instead of the misfit and signal counts, and the weight of each
#: choice a candidate contradicts then. Off: measured no better (docs/benchmarks.md,
#: 2026-12-03 19:10: the worlds' opponents no closer to the true ones, the play -0.025 ±
#: 0.025 against the counts, and the weighing three times as dear).
REPLAY = False
REPLAY_WEIGHT = 4.0
#: Whether an opponent that committed its Bid before this seat holds the card the heuristic
#: bids from six (its hand and that card), not a random one beside a random hand.
BID_REPLAY = True
#: Whether an opponent that chose its Beast or Raven card before this seat chose the card the
#: heuristic gives up (its ``_keep_best``), not a random one.
PICK_REPLAY = True
#: Whether a candidate is weighed by how likely its hand and Fate made the opponent keep or
#: replace its Fate as it did (:func:`.pg_inference.fate_likelihood`).
FATE_CHOICES = True
#: Candidates lighter than this share of the heaviest are not weighed by the Fate choices.
FATE_PRUNE = 1e-3
#: Candidate weights tilted by ``exp(TILT * category)`` of the hand's potential (0: none).
TILT = 0.0
#: Simultaneous asks: every waiting seat has the same kind as this seat.
SIMULTANEOUS = ("bid", "beast", "raven", "donjon")


def shown_stacks(view: dict[str, Any]) -> list[list[str]]:
    """The cards in front of each seat, bottom first, from the view's events (the Bid's
    cards, then every Play); a stack the events do not explain keeps only its top card."""
    n = view["players"]
    stacks: list[list[str]] = [[] for _ in range(n)]
    for ev in view["events"]:
        if ev["e"] == "bids":
            for s, card in enumerate(ev["cards"]):
                stacks[s].append(card)
        elif ev["e"] == "play":
            stacks[ev["seat"]].append(ev["card"])
    for s in range(n):
        top = view["showing"][s]
        if len(stacks[s]) != view["stacks"][s] or (stacks[s] and stacks[s][-1] != top):
            stacks[s] = [top] if top else []
    return stacks


def _chosen_since_high(view: dict[str, Any]) -> set[int]:
    """Seats that already made this Beast or Raven choice (their card is hidden)."""
    chosen: set[int] = set()
    for ev in view["events"]:
        if ev["e"] == "high":
            chosen = set()
        elif ev["e"] == "chosen":
            chosen.add(ev["seat"])
    return chosen


#: One opponent's weighted candidates: ``(hand, Fate, weight)``, drawn once per decision.
Candidates = list[tuple[list[str], "str | None", float]]


def _draw_candidates(
    pool: list[str],
    size: int,
    fate: str | None,
    focus: str | None,
    removed: list[str],
    rng: random.Random,
    tries: int,
    sigs: list[Signal] | None = None,
    steps: list[Step] | None = None,
    held: list[str] | None = None,
    said: list[FateChoice] | None = None,
    barred: set[str] | None = None,
) -> Candidates:
    """``tries`` hands (and Fates, when unknown) drawn from ``pool``, each weighted by how
    well the opponent's own choices fit it (see :mod:`.pg_inference`). ``held``: the cards
    of its hand this seat knows of (weighed with the drawn ones, not drawn); ``said``: its
    choices to keep or replace its Fate; ``barred``: cards its Fate cannot be
    (:func:`.pg_known.ruled_out_fates`). Empty when no card of the pool may be its Fate."""
    out: Candidates = []
    barred = barred if fate is None and barred else None
    if barred is not None and all(c in barred for c in pool):
        return out
    for _ in range(tries):
        cards = rng.sample(pool, size + (fate is None))
        while barred is not None and cards[-1] in barred:
            cards = rng.sample(pool, size + 1)  # (redrawn whole: hand and Fate stay uniform)
        hand, its_fate = (cards, fate) if fate is not None else (cards[:-1], cards[-1])
        whole = [*held, *hand] if held else hand
        if steps is not None:
            missed = replay_misses(steps, whole, its_fate, focus, MAX_MISSES)
            out.append((hand, its_fate, math.exp(-REPLAY_WEIGHT * missed)))
            continue
        fixed = [c for c in (its_fate, focus) if c]
        # The cheaper count first; past MAX_MISSES a candidate weighs next to nothing.
        missed = signal_misses(whole, fixed, sigs) if sigs else 0
        weight = math.exp(-SIGNAL_WEIGHT * missed)
        if removed:
            weight *= math.exp(-MISFIT_WEIGHT * misfits(whole, fixed, removed, MAX_MISSES - missed))
        if TILT:
            weight *= math.exp(TILT * potential(whole, fixed)[0])
        out.append((hand, its_fate, weight))
    if said and out:
        # The Fate choices weigh last, and only the candidates that weigh something already
        # (a thousandth of the heaviest): the others get the least the choices can weigh.
        bar = FATE_PRUNE * max(c[2] for c in out)
        out = [
            (hand, its_fate, weight * fate_likelihood([*(held or ()), *hand], its_fate, said, rng))
            if weight >= bar
            else (hand, its_fate, weight * pg_inference.FATE_FLOOR ** len(said))
            for hand, its_fate, weight in out
        ]
    return out


def _infer_hand(
    pool: list[str],
    size: int,
    fate: str | None,
    focus: str | None,
    removed: list[str],
    rng: random.Random,
    shared: Candidates | None = None,
    sigs: list[Signal] | None = None,
    held: list[str] | None = None,
    said: list[FateChoice] | None = None,
    barred: set[str] | None = None,
) -> tuple[list[str], str | None] | None:
    """One opponent's hand (and Fate, when unknown): one of a few drawn from the pool, by
    how well its own choices fit it. ``shared`` candidates (drawn once for the decision from
    every unseen card) are used when one of them fits the cards still free: weighing a
    candidate costs more than a rollout, and a few dozen serve every world of a decision.
    None when no Fate the view allows is left in the pool."""
    if shared:
        free = set(pool)
        fits = [c for c in shared if free.issuperset(c[0]) and (fate is not None or c[1] in free)]
        if fits:
            hand, its_fate, _ = rng.choices(fits, [c[2] for c in fits])[0]
            return list(hand), its_fate
    tries = CANDIDATES if removed or said else 1
    drawn = _draw_candidates(
        pool, size, fate, focus, removed, rng, tries, sigs, None, held, said, barred
    )
    if not drawn:
        return None
    if tries == 1:
        return drawn[0][0], drawn[0][1]
    hand, its_fate, _ = rng.choices(drawn, [c[2] for c in drawn])[0]
    return hand, its_fate


def _starter(view: dict[str, Any]) -> int | None:
    starter = None
    for ev in view["events"]:
        if ev["e"] == "round":
            starter = ev["starter"]
    return starter


def _places(
    view: dict[str, Any],
) -> tuple[
    list[list[str]], dict[int, list[str]], list[str | None], list[str], dict[int, list[str]]
]:
    """What the view fixes: the stacks in front, hands this seat sees, the Fates it knows,
    the unseen common cards (in the order of the common deck), and the cards it knows to be
    in other hands (:func:`.pg_known.known_places`)."""
    n, me = view["players"], view["seat"]
    stacks = shown_stacks(view)
    ask = view["ask"] or {}
    kind = ask.get("kind")
    info = {k: v for k, v in ask.items() if k != "kind"}
    known_hands: dict[int, list[str]] = {}
    if kind == "darklord_pick":
        known_hands[info["target"]] = list(info["hand"])
    fates: list[str | None] = [None] * n
    held, known_fates = known_places(view)
    for s, card in known_fates.items():
        fates[s] = card
    for key, card in view["open_fates"].items():
        fates[int(key)] = card
    fates[me] = view["fate"]
    seen = set(view["hand"]) | set(view["discard"])
    seen.update(c for st in stacks for c in st)
    seen.update(c for c in fates if c)
    seen.update(c for h in known_hands.values() for c in h)
    seen.update(c for h in held.values() for c in h)
    for code in (view["focus"], view["killed"], view.get("bid"), view.get("picked")):
        if code:
            seen.add(code)
    pool = [c for c in TAROKKA_COMMON if c not in seen]
    return stacks, known_hands, fates, pool, held


def shared_candidates(
    view: dict[str, Any], rng: random.Random, tries: int | None = None
) -> dict[int, Candidates]:
    """Per opponent whose choices say something, weighted candidate hands drawn from every
    unseen card: drawn once per decision and shared by its worlds (``sample_world``).
    ``tries``: candidates per opponent (default ``SHARED_CANDIDATES``)."""
    tries = SHARED_CANDIDATES if tries is None else tries
    _, known_hands, fates, pool, held = _places(view)
    removed = choices(view)
    sigs = signals(view)
    said = fate_choices(view) if FATE_CHOICES else {}
    barred = ruled_out_fates(view)
    out: dict[int, Candidates] = {}
    for s in range(view["players"]):
        if s == view["seat"] or s in known_hands or not removed.get(s):
            continue
        size = view["hand_sizes"][s] - len(held.get(s, ()))
        steps = timeline(view, s) if REPLAY else None
        if size + (fates[s] is None) <= len(pool):
            out[s] = _draw_candidates(
                pool,
                size,
                fates[s],
                view["focus"],
                removed[s],
                rng,
                tries,
                sigs.get(s),
                steps,
                held.get(s),
                said.get(s),
                barred[s],
            )
    return out


def heuristic_bid(cards: list[str], fate: str | None, focus: str | None) -> str:
    """The card the heuristic bot bids from ``cards`` (``ProphetsGambitBot._bid``: the one
    whose loss leaves the best potential, the highest number on ties)."""
    fixed = [c for c in (fate, focus) if c]
    return max(cards, key=lambda c: (potential(without(cards, c), fixed), tarokka_number(c) or 0))


def heuristic_pick(hand: list[str], fate: str | None, focus: str | None) -> str:
    """The card the heuristic gives up from ``hand`` (``ProphetsGambitBot._keep_best``: the
    one whose loss leaves the best potential, the lowest number on ties)."""
    fixed = [c for c in (fate, focus) if c]
    return max(hand, key=lambda c: (potential(without(hand, c), fixed), -(tarokka_number(c) or 10)))


def sample_world(
    game: Any,
    view: dict[str, Any],
    rng: random.Random,
    shared: dict[int, Candidates] | None = None,
    engine: bool = True,
) -> PGState | None:
    """A state consistent with ``view``; None when the counts cannot be met. ``shared``:
    candidate hands drawn once for the decision (:func:`shared_candidates`). ``engine``
    False: the same places on a plain namespace, not an engine state (for the fast deal,
    :meth:`.pg_sim.Sim.of_state`, which reads only them)."""
    n, me = view["players"], view["seat"]
    ask = view["ask"] or {}
    kind = ask.get("kind")
    info = {k: v for k, v in ask.items() if k != "kind"}
    stacks, known_hands, fates, pool, held = _places(view)
    rng.shuffle(pool)

    def take(k: int) -> list[str] | None:
        if k > len(pool):
            return None
        got = pool[len(pool) - k :]
        del pool[len(pool) - k :]
        return got

    removed = choices(view)
    sigs = signals(view)
    said = fate_choices(view) if FATE_CHOICES else {}
    barred = ruled_out_fates(view)
    hands: list[list[str]] = [[] for _ in range(n)]
    for s in range(n):
        if s == me:
            hands[s] = list(view["hand"])
        elif s in known_hands:
            hands[s] = known_hands[s]
        else:
            kept = held.get(s, [])
            size = view["hand_sizes"][s] - len(kept)
            if size + (fates[s] is None) > len(pool):
                return None
            inferred = _infer_hand(
                pool,
                size,
                fates[s],
                view["focus"],
                removed.get(s, []),
                rng,
                (shared or {}).get(s),
                sigs.get(s),
                kept,
                said.get(s),
                barred[s],
            )
            if inferred is None:
                return None
            hand, fate = inferred
            hands[s] = [*kept, *hand]
            fates[s] = fate
            gone = {*hand, fate}
            pool[:] = [c for c in pool if c not in gone]
    for s in range(n):
        if fates[s] is None and s != me:
            # The last card of the shuffled pool that may be its Fate.
            i = next((i for i in reversed(range(len(pool))) if pool[i] not in barred[s]), None)
            if i is None:
                return None
            fates[s] = pool.pop(i)
    bids: list[str | None] = [None] * n
    if view["phase"] == "bid":
        for s in range(n):
            if s == me:
                bids[s] = view.get("bid")
            elif view["committed"][s]:
                got = take(1)
                if got is None:
                    return None
                if BID_REPLAY:
                    bid = bids[s] = heuristic_bid([*hands[s], got[0]], fates[s], view["focus"])
                    hands[s] = without([*hands[s], got[0]], bid)
                else:
                    bids[s] = got[0]
    deck = take(view["deck"])
    if deck is None:
        return None
    gone = set(view["high_discard"]) | {c for f in view["fronts"] for c in f}
    highs = [c for c in TAROKKA_HIGH if c not in gone]
    rng.shuffle(highs)
    if len(highs) < view["high_deck"]:
        return None
    high_deck = highs[: view["high_deck"]]

    placed = [*deck, *view["discard"], *(c for h in hands for c in h), *fates, *bids]
    placed += [c for st in stacks for c in st] + [view["focus"], view["killed"]]
    placed = [c for c in placed if c]
    if len(placed) != len(set(placed)):
        return None  # the view's history was read wrongly somewhere: draw no such world

    if engine:
        # The engine deals a legal start from a stacked deck; the view's places are set on it.
        world = game.new_state(n, view["options"], dealer=view["dealer"], seed=rng.getrandbits(32))
    else:
        world = SimpleNamespace(num_players=n, dealer=view["dealer"])
    world.focus = view["focus"]
    world.killed = view["killed"]
    world.fates = fates
    world.fate_open = [str(s) in view["open_fates"] for s in range(n)]
    world.hands = hands
    world.deck = deck
    world.discard = list(view["discard"])
    world.high_deck = high_deck
    world.high_discard = list(view["high_discard"])
    world.shown = stacks
    world.fronts = [list(f) for f in view["fronts"]]
    world.bids = bids
    picks: list[str | None] = [None] * n
    if kind in ("beast", "raven"):
        for s in _chosen_since_high(view):
            if s != me and hands[s]:
                picks[s] = (
                    heuristic_pick(hands[s], fates[s], view["focus"])
                    if PICK_REPLAY
                    else rng.choice(hands[s])
                )
    if view.get("picked") is not None:
        picks[me] = view["picked"]
    world.picks = picks
    world.phase = view["phase"]
    world.round = view["round"]
    starter = _starter(view)
    world.order = [(starter + i) % n for i in range(n)] if starter is not None else []
    world.turned = list(view["turned"])
    world.current = view["turn"]
    world.donjon = any(ev["e"] == "donjon" for ev in view["events"])
    glimpse = view.get("glimpse")
    world.glimpse = {"seat": me, "fates": dict(glimpse)} if glimpse else None
    world.result = None
    asks: list[list[Any] | None] = [None] * n
    for s in view["waiting"]:
        if s == me:
            asks[s] = [kind, info]
        elif kind in SIMULTANEOUS:
            count = {"count": len(hands[s]) - 3} if kind == "donjon" else {}
            asks[s] = [kind, count]
        else:
            return None  # another seat decides something this seat cannot see
    world.asks = asks
    # The rollout bots' sense of which cards are out (the engine never reads old events).
    world.events = [{"e": "bids", "cards": [c for st in stacks for c in st]}]
    world.history = []
    return world
