"""The colour depth of a player's terminal, for their app.

Textual takes an app's colour depth (and ``NO_COLOR``) from the *process*: on a server that
is the server's own environment, shared by every player. Each app is given its player's
instead, from what their SSH client (or the local terminal) said (:class:`TermInfo`).

Private names written: Rich's ``Console._color_system`` (Textual gives no public setting;
its driver renders styles at that depth) and Textual's ``App._filters`` (a monochrome filter
for a terminal without colour, for apps that do not add it themselves as the Gambit app does
in ``get_line_filters``). Guarded by
``tests/tui/test_units.py::test_colour_depth_comes_from_the_players_terminal``.
"""

from __future__ import annotations

from typing import Any

from rich.console import COLOR_SYSTEMS
from textual.filter import Monochrome

from protocol.term import TermInfo


def set_colour_depth(app: Any, term: TermInfo) -> None:
    """Render ``app`` at ``term``'s colour depth; greys only for a terminal without colour."""
    from .textual_layer import on_instance

    system = term.color_system
    on_instance("colour_depth.color_system", app.console, COLOR_SYSTEMS[system] if system else None)
    if system is None and not any(isinstance(f, Monochrome) for f in app._filters):
        app._filters.append(Monochrome())
