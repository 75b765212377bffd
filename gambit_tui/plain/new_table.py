"""What ``new`` typed in the plain mode asks for: a game, a number of players, a stake, a
turn timer and the game's options, in any order and by unique prefix (``new prophet 4
players stake 10 schedule down``, ``new fortunes betting ante``). The options and their
limits are the hub's (its ``server`` message); the hub checks the request again."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..i18n import _
from ..names import GAME_TITLES, game_title
from .words import is_number


@dataclass
class NewTable:
    """A table to open, or the one sentence that says why not."""

    game: str = "prophets_gambit"
    players: int | None = None
    stake: int | None = None
    timer: int | None = None
    options: dict[str, Any] = field(default_factory=dict)
    refusal: str | None = None


def _key(word: str) -> str:
    return word.casefold().replace("_", "").replace("-", "").replace("'", "")


def _matches(word: str, names: list[str]) -> list[str]:
    """The names ``word`` starts (an exact name alone if there is one)."""
    typed = _key(word)
    exact = [n for n in names if _key(n) == typed]
    return exact or [n for n in names if typed and _key(n).startswith(typed)]


def _game_of(word: str, games: list[str]) -> str | None:
    """The game ``word`` names (by its name or title, in English or the player's language):
    one named exactly first, else the first it starts."""
    typed = _key(word)

    def titles(g: str) -> list[str]:
        return [_key(t) for t in (g, GAME_TITLES.get(g, g), _(GAME_TITLES.get(g, g)))]

    exact = [g for g in games if typed in titles(g)]
    starts = [g for g in games if any(t.startswith(typed) for t in titles(g))]
    found = exact or starts
    return found[0] if found else None


def _number(word: str | None) -> int | None:
    return int(word) if word is not None and is_number(word) else None


def parse_new(arg: str, games: list[dict[str, Any]]) -> NewTable:
    """Read what follows ``new``; ``games`` is the hub's list (names, seats, options)."""
    words = arg.split()
    names = [g["name"] for g in games]
    out = NewTable()
    if words and not is_number(words[0]):
        found = _game_of(words[0], names)
        if found is not None:
            out.game = found
            words = words[1:]
    info = next((g for g in games if g["name"] == out.game), {})
    specs: dict[str, dict[str, Any]] = info.get("options") or {}
    fixed = ["players", "stake", "timer"]
    i = 0
    while i < len(words):
        word = words[i]
        after = words[i + 1] if i + 1 < len(words) else None
        if is_number(word):  # "4" or "4 players"
            out.players = int(word)
            i += 2 if after is not None and _matches(after, ["players"]) else 1
            continue
        keys = _matches(word, fixed + list(specs))
        if len(keys) != 1:
            accepted = ", ".join(fixed + list(specs))
            out.refusal = _("{game} has no option {word}: it takes {options}.").format(
                game=game_title(out.game), word=word, options=accepted
            )
            return out
        key = keys[0]
        refusal = _set(out, key, after, specs.get(key))
        if refusal:
            out.refusal = refusal
            return out
        i += 2
    low, high = int(info.get("min_players", 3)), int(info.get("max_players", 6))
    if out.players is not None and not low <= out.players <= high:
        out.refusal = _("{game} seats {low} to {high} players.").format(
            game=game_title(out.game), low=low, high=high
        )
    return out


def _set(out: NewTable, key: str, value: str | None, spec: dict[str, Any] | None) -> str | None:
    """Set option ``key`` to the typed ``value``; the refusal if it cannot be."""
    if spec is None:  # players, stake, timer: a number
        n = _number(value)
        if n is None:
            return _("Type a number after {option}, as in {option} 10.").format(option=key)
        setattr(out, key, n)
        return None
    choices = spec.get("choices")
    if choices:
        found = _matches(value or "", [str(c) for c in choices])
        if len(found) != 1:
            return _("{option} takes {values}.").format(
                option=key, values=", ".join(str(c) for c in choices)
            )
        out.options[key] = next(c for c in choices if str(c) == found[0])
        return None
    n = _number(value)
    low, high = spec.get("min"), spec.get("max")
    if n is None or (low is not None and n < low) or (high is not None and n > high):
        return _("{option} takes a number from {low} to {high}.").format(
            option=key, low=low if low is not None else 0, high=high if high is not None else n
        )
    out.options[key] = n
    return None
