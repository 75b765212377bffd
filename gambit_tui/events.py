"""Textual messages the app sends its screens when the server tells it something.

The app reads the connection and updates its :class:`~gambit_tui.model.ClientModel`; then each
screen in the stack gets one of these and updates its widgets from the model ("attributes
down, messages up"). They do not bubble: a screen that does not care simply ignores them.
"""

from __future__ import annotations

from typing import Any

from textual.message import Message

from .model import ChatLine


class ServerEvent(Message, bubble=False):
    """Base of every message that comes from the server."""

    def __init_subclass__(cls, bubble: bool | None = False, **kwargs: Any) -> None:
        # Textual sets ``bubble`` again for every subclass (to True unless told): without
        # this, every table update bubbled from each screen up to the app, for nothing.
        super().__init_subclass__(bubble=bubble, **kwargs)


class YouChanged(ServerEvent):
    """Our name, chips, ratings, language or preferences changed."""


class LobbyChanged(ServerEvent):
    """Tables or players online changed."""


class TableUpdated(ServerEvent):
    """A table we sit at or watch has a new state."""

    def __init__(self, table_id: int) -> None:
        super().__init__()
        self.table_id = table_id


class ChatArrived(ServerEvent):
    """A chat ``line`` arrived on ``key`` ("lobby" or a table id). The line itself, not the
    channel's last: two lines may arrive before a screen handles the first."""

    def __init__(self, key: str | int, line: ChatLine) -> None:
        super().__init__()
        self.key = key
        self.line = line


class SocialChanged(ServerEvent):
    """Friends or invitations changed."""


class Refused(ServerEvent):
    """The hub refused something we sent (``ref`` names the message type, e.g. "act")."""

    def __init__(self, ref: str | None) -> None:
        super().__init__()
        self.ref = ref


class HistoryArrived(ServerEvent):
    """A page of our finished games, or a leaderboard, arrived."""


class NightsChanged(ServerEvent):
    """The list of game nights, or a followed night's standings, arrived."""


class AdminReplied(ServerEvent):
    """The hub answered an admin request (the model keeps the last answer of each op)."""

    def __init__(self, op: str) -> None:
        super().__init__()
        self.op = op


class LookChanged(ServerEvent):
    """Theme, card faces or language changed: re-render."""


class RecordArrived(ServerEvent):
    """A finished game's record (its players, result and the verdict on its deal) arrived."""

    def __init__(self, game_id: int) -> None:
        super().__init__()
        self.game_id = game_id


class ProfileArrived(ServerEvent):
    """A player's public profile arrived (the model keeps it by name)."""
