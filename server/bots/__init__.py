"""Bots: given exactly the view a human in that seat gets, return a legal action.

Every game has at least a ``random`` bot and a ``heuristic`` bot; find one with
:func:`make_bot`. A bot never sees a state, only ``State.view(seat)``.
"""

from __future__ import annotations

from .base import Bot, RandomBot, bot_kinds, make_bot, register_bot

__all__ = ["Bot", "RandomBot", "bot_kinds", "make_bot", "register_bot"]
