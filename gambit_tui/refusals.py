"""What the server said, in the player's language.

The hub sends a refusal or a notice as an English ``message`` and, for its own sentences, the
``text`` it was made from with its ``args`` (``server/hub/errors.py``); the catalogs hold
every such text, so the app says it translated. What has no text (the rules engine's own
detailed explanations, a bad frame) is said in general words for its ``code`` when the player
does not read English, else as sent.
"""

from __future__ import annotations

from typing import Any

from .i18n import N_, _

#: General words for refusals whose detail comes only in English.
GENERAL: dict[str, str] = {
    "out_of_turn": N_("It is not your turn to decide."),
    "illegal": N_("That move is not allowed now."),
    "malformed": N_("The server could not read that action."),
    "bad_options": N_("The server does not allow these table options."),
    "internal": N_("Something went wrong on the server."),
    "slow_down": N_("Too fast; wait a moment."),
}


def server_text(message: dict[str, Any], fallback: str = "") -> str:
    """The sentence of an ``error``, ``notice`` or ``bye`` message, for the player to read."""
    text, args = message.get("text"), message.get("args") or {}
    if isinstance(text, str) and text and isinstance(args, dict):
        try:
            return _(text).format(**args)
        except (KeyError, IndexError, ValueError):
            pass  # a translation that names another gap: the English words are right
    english = str(message.get("message") or "")
    general = GENERAL.get(str(message.get("code")))
    if general is not None and (not english or _(general) != general):
        return _(general)  # (said in English, the detail is worth more than general words)
    return english or fallback
