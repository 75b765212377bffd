"""A player's public profile in words: since when, games played, and per game the rating and
best results. Kept apart from the screen so it is tested (and translated) on its own."""

from __future__ import annotations

import time
from typing import Any

from .i18n import _, ngettext
from .names import game_title


def profile_lines(profile: dict[str, Any]) -> list[str]:
    """The ``player`` message as lines a person reads."""
    head = profile["name"]
    if profile.get("online"):
        head += " · " + _("online")
    since = time.strftime("%Y-%m-%d", time.localtime(profile["since"]))
    lines = [head, _("Plays here since {date}.").format(date=since)]
    total = profile["games"]
    lines.append(ngettext("{n} finished game.", "{n} finished games.", total).format(n=total))
    if not profile["by_game"]:
        lines.append(_("No rating yet: ratings come with the first finished game."))
    for game, found in profile["by_game"].items():
        lines.append("")
        lines.append(
            _("{game}: rating {rating}").format(game=game_title(game), rating=found["rating"])
        )
        played = ngettext("{n} game, {wins} won", "{n} games, {wins} won", found["games"]).format(
            n=found["games"], wins=found["wins"]
        )
        best = found.get("best_chips")
        if best is not None and best > 0:
            played += " · " + _("best game: +{chips} chips").format(chips=best)
        lines.append("  " + played)
    return lines
