"""What a player is told of themselves (``welcome`` and ``you``): name, chips, ratings,
language, preferences. Sent by the hub at hello and rename, by play after a game and by an
admin's change of their chips."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from protocol.server_messages import YouInfo
from server.engine import all_games
from server.store import Store

from . import ratings
from .money import Account

if TYPE_CHECKING:  # for type hints only
    from .session import Player


def you(store: Store, player: Player) -> YouInfo:
    return {
        "id": player.id,
        "name": player.name,
        "guest": player.guest,
        "chips": store.balance(Account.player(player.id)),
        # Only the games the player has a rating in (a finished, rated game): a newcomer
        # has none, as their profile says, not a 1,000 they never earned (issue 38).
        "ratings": {
            game: ratings.display(rating)
            for game in all_games()
            if (rating := store.rating(player.id, game)) is not None
        },
        "lang": player.lang,
        "prefs": prefs_of(store, player),
        "admin": player.admin,
    }


def prefs_of(store: Store, player: Player) -> dict[str, Any]:
    if player.guest:
        return dict(player.prefs)
    return (store.get_player(player.id) or {}).get("prefs") or {}
