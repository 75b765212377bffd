"""``gambit demo``: bots play a whole game of each kind, narrated from the spectator's view.

The narration reads only public events (what a spectator sees), so the demo also shows that a
whole game can be followed without any hidden card.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TextIO

from .bots import make_bot
from .engine import get_game
from .narrate import Narrator

#: Seconds between two moves when the demo writes to a terminal: read like a narration, one
#: move at a time. Piped into a file or another program, it runs at full speed.
MOVE_PAUSE = 0.6

NAMES = ["Ada", "Boris", "Chen", "Dana", "Emil", "Fay"]
DEFAULT_PLAYERS = {"prophets_gambit": 4, "prophet": 4, "fortunes": 4}
#: What a whole game of each kind is, as the demo plays it (default options): said in
#: ``gambit demo --help`` and in each game's heading, so a reader knows how long it runs.
WHOLE_GAME = {
    "prophets_gambit": "one deal",
    "prophet": "a deal per round, one card more each round",
    "fortunes": "a rubber of four deals",
}


def what_is_played() -> str:
    """The demo's games and what a whole game of each is, for the command's help."""
    return "; ".join(f"{get_game(name).title}: {WHOLE_GAME[name]}" for name in WHOLE_GAME)


def move_pause(out: TextIO, fast: bool) -> float:
    """The pause between moves: :data:`MOVE_PAUSE` for a person at a terminal, none when the
    output is piped (or with ``--fast``)."""
    if fast:
        return 0.0
    try:
        return MOVE_PAUSE if out.isatty() else 0.0
    except (AttributeError, ValueError):  # a closed or unusual stream: no one is watching
        return 0.0


def play_demo_game(
    name: str,
    seed: int,
    players: int | None,
    bot: str,
    out: TextIO,
    pause: float = 0.0,
    sleep: Callable[[float], None] = time.sleep,
) -> dict:
    game = get_game(name)
    n = players or DEFAULT_PLAYERS[name]
    n = max(game.min_players, min(game.max_players, n))
    rng = random.Random(seed)
    dealer = rng.randrange(n)
    state = game.new_state(n, dealer=dealer, seed=seed)
    names = NAMES[:n]
    narrator = Narrator(game.deck_name(state.options), names)
    bots = [make_bot(name, bot, f"{seed}:{s}") for s in range(n)]
    print(
        f"\n=== {game.title} ({WHOLE_GAME[name]}): {n} players ({', '.join(names)}), "
        f"{names[dealer]} deals, seed {seed} ===",
        file=out,
    )
    seen = 0
    while not state.is_over:
        seat = min(state.pending())
        state.apply(seat, bots[seat].choose(state.view(seat)))
        events = state.visible_events(None, since=seen)
        seen = len(state.events)
        for event in events:
            print("  " + narrator.line(event), file=out)
        if pause and events:
            out.flush()
            sleep(pause)
    outcome = state.outcome()
    assert outcome is not None
    print(f"--- Result of {game.title} ---", file=out)
    for place, seat in enumerate(outcome.ranking, 1):
        hand = (outcome.hands or [None] * n)[seat]
        desc = f"  ({hand.get('name', '')})" if hand else ""
        print(f"  {place}. {names[seat]}: score {outcome.scores[seat]}{desc}", file=out)
    pot = outcome.payouts(10)
    print(
        "  Pot at a stake of 10: "
        + ", ".join(f"{names[s]} takes {pot[s]}" for s in range(n) if pot[s]),
        file=out,
    )
    return outcome.to_wire()


def run_demo(
    games: list[str] | None,
    seed: int | None,
    players: int | None,
    bot: str,
    out: TextIO,
    fast: bool = False,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """Play and narrate each game in ``games`` (all of them by default), paced for a reader
    when ``out`` is a terminal (see :func:`move_pause`)."""
    seed = random.randrange(1_000_000) if seed is None else seed
    pause = move_pause(out, fast)
    for name in games or ["prophets_gambit", "prophet", "fortunes"]:
        play_demo_game(name, seed, players, bot, out, pause=pause, sleep=sleep)
    return 0
