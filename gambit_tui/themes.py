"""The themes a player can choose: dark, light, and monochrome (no colour at all)."""

from __future__ import annotations

from textual.theme import Theme

MONO = Theme(
    name="gambit-mono",
    primary="#d0d0d0",
    secondary="#a8a8a8",
    accent="#ffffff",
    foreground="#e4e4e4",
    background="#000000",
    surface="#121212",
    panel="#262626",
    boost="#1c1c1c",
    warning="#ffffff",
    error="#ffffff",
    success="#ffffff",
    dark=True,
)

#: Preference value → Textual theme name.
THEME_NAMES = {"dark": "textual-dark", "light": "textual-light", "mono": MONO.name}
