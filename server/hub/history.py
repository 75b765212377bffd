"""A player's finished games, public profiles and the per-game leaderboards, from the store.

Only finished games are in the store's records, so a running game's cards can never leak
through a history: a game appears here once it has ended.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from protocol.messages import HISTORY_PAGE, LEADERBOARD_ROWS
from protocol.requests import History as HistoryRequest
from protocol.requests import Leaderboard, Player
from server.engine import get_game

from . import ratings
from .errors import HubError
from .session import need_player

if TYPE_CHECKING:  # for type hints only
    from .runtime import HubRuntime
    from .session import Session

#: Games a player must have finished to appear on a leaderboard.
MIN_GAMES = 3


class History:
    """Finished games, profiles and leaderboards, read from the store: no state of its own."""

    def __init__(self, run: HubRuntime) -> None:
        # Collaborators: the store, players' names and who is online.
        self.run = run
        self.store = run.store
        self.players = run.players

    def history_entry(self, game: dict[str, Any]) -> dict[str, Any]:
        """One line of a history: no card, no seed; the players by name (None: a bot)."""
        return {
            "id": game["id"],
            "game": game["game"],
            "finished": int(game["finished"]),
            "players": [self.run.name_of(pid) if pid else None for pid in game["players"]],
            "seat": game["seat"],
            "place": game["place"],
            "chips": game["chips"],
            "rating_change": game["rating_change"],
        }

    def on_history(self, session: Session, message: HistoryRequest) -> None:
        player = need_player(session)
        game = message.game
        total = self.store.count_games_of(player.id, game)
        pages = max(1, -(-total // HISTORY_PAGE))
        page = min(message.page or 0, pages - 1)
        games = self.store.games_of(player.id, HISTORY_PAGE, offset=page * HISTORY_PAGE, game=game)
        session.push(
            {
                "t": "history",
                "games": [self.history_entry(g) for g in games],
                "game": game,
                "page": page,
                "pages": pages,
                "total": total,
            }
        )

    def on_leaderboard(self, session: Session, message: Leaderboard) -> None:
        need_player(session)
        game = get_game(message.game).name
        counts = self.store.game_counts(game)
        rows: list[dict[str, Any]] = [
            {"name": self.run.name_of(pid), "rating": ratings.display(rating), "games": counts[pid]}
            for pid, rating in self.store.ratings_for(game).items()
            if counts.get(pid, 0) >= MIN_GAMES
        ]
        rows.sort(key=lambda r: (-r["rating"], -r["games"], r["name"]))
        session.push(
            {
                "t": "leaderboard",
                "game": game,
                "min_games": MIN_GAMES,
                "rows": rows[:LEADERBOARD_ROWS],
            }
        )

    def on_player(self, session: Session, message: Player) -> None:
        """Anyone's public profile: ratings per game, games played, best results, since when
        (never a key fingerprint, chips held or anything of a game in play)."""
        need_player(session)
        name = message.name.strip()
        online = {p.name.casefold(): pid for pid, p in self.players.items() if p.name}
        pid = online.get(name.casefold()) or self.store.name_owner(name)
        row = self.store.get_player(pid) if pid else None
        if row is None:
            raise HubError("no_player", "There is no player called {name}.", name=name)
        assert pid is not None  # (a row was found for it)
        stats = self.store.player_stats(pid)
        rated = self.store.ratings_of(pid)
        by_game = {
            game: {
                "rating": ratings.display(rated.get(game)),
                "games": found["games"],
                "wins": found["wins"],
                "best_chips": found["best_chips"],
            }
            for game, found in sorted(stats.items())
        }
        session.push(
            {
                "t": "player",
                "name": self.run.name_of(pid),
                "since": int(row["created"]),
                "online": pid in self.players,
                "games": sum(g["games"] for g in by_game.values()),
                "by_game": by_game,
            }
        )
