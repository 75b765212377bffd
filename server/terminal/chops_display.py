"""The compositor's update handed to the driver as pieces, not as one string to parse again.

Textual draws a frame by turning its compositor's update (``ChopsUpdate``: the changed
pieces of the changed rows; ``LayoutUpdate``: every row) into one string of cursor moves and
styled text (``render_segments``), which it writes to the driver. Our driver then split that
string again at every cursor move, to diff each piece against what the player's screen shows
(``screen_diff.py``) and rewrite its styles (``sgr.py``): a sixth of an app update went to
making the string and taking it apart. Here the driver is given the pieces themselves, each
as (row, column, its text as ``Strip.render`` makes it, and the cells it covers): the same
pieces the string held, without the string, and measured already (the strip knows its
length; measuring the text again, a character at a time, was a tenth of the driver's work).

What Textual's ``App._display`` does around the string is done here as it does it: nothing
while the app is batching updates or not running, the synchronised-output markers when the
terminal has them, the cursor's last position remembered, an error handed to the app,
``post_display_hook`` after. Any other renderable (and an inline app) goes to Textual's own
``_display``.

This reads private names of Textual's: ``App._display`` (wrapped on the one app instance),
``App._batch_count``, ``_running``, ``_closed``, ``_driver``, ``_sync_available``,
``_previous_cursor_position``, ``_handle_exception``; ``ChopsUpdate.chops``, ``.spans``,
``.chop_ends``; ``LayoutUpdate.strips``, ``.region`` (all in ``textual._compositor``).
Guarded by ``tests/ssh/test_chops_display.py`` (the internals are there; the pieces draw the
same screen, byte for byte, as Textual's string did, on real table updates) and the driver's
own tests; Textual is pinned to the 8.2 series.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from server.apphost.textual_private import ChopsUpdate, LayoutUpdate

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from textual.app import App
    from textual.screen import Screen


class Frame(NamedTuple):
    """One frame as the driver takes it: what ``render_segments`` would have written."""

    #: (row, column), both from 1 as in a cursor move, the piece's styled text and its cells
    #: (as its strip measures them); the last is the cursor's move that Textual writes after
    #: them (no text: the cursor is hidden, but the screen diff sees a row with a bare move
    #: as one it does not scroll).
    pieces: list[tuple[int, int, str, int]]
    #: Within synchronised-output markers (the terminal has them).
    sync: bool

    def text(self) -> str:
        """The frame as one string (for what the driver does not take as pieces)."""
        body = "".join(f"\x1b[{row};{column}H{text}" for row, column, text, _ in self.pieces)
        return f"\x1b[?2026h{body}\x1b[?2026l" if self.sync else body


def update_pieces(
    update: ChopsUpdate | LayoutUpdate, console: Console
) -> list[tuple[int, int, str, int]]:
    """The pieces of ``update``, each as ``render_segments`` writes it after a cursor move,
    with its cells."""
    pieces: list[tuple[int, int, str, int]] = []
    append = pieces.append
    if isinstance(update, LayoutUpdate):
        x = update.region.x + 1
        for y, line in enumerate(update.strips, update.region.y + 1):
            strips = list(line)
            text = "".join([strip.render(console) for strip in strips])
            append((y, x, text, sum([strip.cell_length for strip in strips])))
        return pieces
    chops = update.chops
    chop_ends = update.chop_ends
    for y, x1, x2 in update.spans:
        for end, (x, strip) in zip(chop_ends[y], chops[y].items(), strict=False):
            if strip is None or x > x2 or end <= x1:
                continue
            if not (x2 > x >= x1 and end <= x2):
                strip = strip.crop(0, min(end, x2) - x)
            append((y + 1, x + 1, strip.render(console), strip.cell_length))
    return pieces


def display_as_pieces(app: App[Any], take: Callable[[Frame, bool], None]) -> None:
    """Make ``app`` hand its compositor updates to ``take`` (a frame, and whether it is the
    whole screen) instead of writing them to its driver as a string. For as long as the app
    lives, or until ``del app._display``."""
    display = app._display

    def display_pieces(screen: Screen, renderable: RenderableType | None) -> None:
        if not isinstance(renderable, (ChopsUpdate, LayoutUpdate)):
            display(screen, renderable)
            return
        driver = app._driver
        if driver is None or driver.is_inline:
            display(screen, renderable)
            return
        try:
            if app._batch_count or not app._running or app._closed or driver.is_headless:
                return
            try:
                pieces = update_pieces(renderable, app.console)
                cursor = app.screen.outer_size.clamp_offset(app.cursor_position)
                app._previous_cursor_position = cursor
            except Exception as error:
                app._handle_exception(error)
            else:
                pieces.append((cursor.y + 1, cursor.x + 1, "", 0))
                take(Frame(pieces, app._sync_available), isinstance(renderable, LayoutUpdate))
        finally:
            app.post_display_hook()

    from server.apphost.textual_layer import on_instance

    on_instance("chops_display.display", app, display_pieces)
