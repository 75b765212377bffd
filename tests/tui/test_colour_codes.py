"""Each app draws in its own terminal's colours though apps share styles and strips
(``server/apphost/colour_codes.py``): Textual kept a style's codes, and a strip's text, for
whichever colour depth drew it first."""

from __future__ import annotations

import re

import pytest
from rich.color import ColorSystem
from rich.console import COLOR_SYSTEMS, Console
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from server.apphost import colour_codes
from server.apphost.textual_layer import install_all

#: An SGR colour parameter of 24-bit (``38;2;r;g;b``) and 256-colour (``38;5;n``) depth.
TRUECOLOUR = re.compile(r"\x1b\[[0-9;]*\b[34]8;2;")
EIGHT_BIT = re.compile(r"\x1b\[[0-9;]*\b[34]8;5;")


def _console(system: str) -> Console:
    console = Console()
    console._color_system = COLOR_SYSTEMS[system]
    return console


def test_the_textual_and_rich_internals_it_replaces_are_there():
    from textual.strip import SGR_STYLES

    assert callable(Strip.render_ansi) and callable(Strip.render_style)
    strip = Strip([Segment("x", Style(bold=True))])
    assert strip._render_cache is None and strip._segments
    style = Style(color="red", bgcolor="blue", bold=True, link="https://example.org")
    for name in (
        "_ansi",
        "_attributes",
        "_set_attributes",
        "_color",
        "_bgcolor",
        "_link",
        "_link_id",
    ):
        assert hasattr(style, name), name
    assert SGR_STYLES[0] == "1"
    # The codes are Textual's own, at each depth.
    install_all()
    for system in ColorSystem:
        fresh = Style(color="#ff8800", bgcolor="#112233", bold=True, italic=True)
        ours = colour_codes.codes_for(fresh, system)
        assert ours == Style._make_ansi_codes(fresh, system)


def test_a_shared_style_and_strip_render_at_each_consoles_depth():
    install_all()  # as every app host does (idempotent)
    style = Style(color="#ff8800", bgcolor="#112233", bold=True)
    first = Strip([Segment("hi", style)])
    other = Strip([Segment("hi", style)])
    assert TRUECOLOUR.search(first.render(_console("truecolor")))
    standard = other.render(_console("standard"))
    assert standard == "\x1b[1;91;40mhi\x1b[0m"
    assert first.render(_console("256")) == "\x1b[1;38;5;208;48;5;17mhi\x1b[0m"
    assert first.render(_console("standard")) == standard
    assert TRUECOLOUR.search(first.render(_console("truecolor")))
    linked = Strip([Segment("go", Style(color="#ff8800", link="https://example.org"))])
    assert "\x1b]8;id=" in linked.render(_console("standard"))


@pytest.mark.parametrize("order", ["truecolour first", "standard first"])
async def test_players_at_one_table_get_their_own_terminals_colours(order):
    """Five apps in one process at a Prophet's Gambit table, on truecolor, 256-colour and
    16-colour terminals, in either order: each app's bytes carry only its terminal's codes."""
    from bench.table_updates import TABLE_SIZE, seat_apps, settle
    from protocol.term import TermInfo

    kinds = {
        "truecolor": TermInfo(width=80, height=24, term="xterm-256color", colorterm="truecolor"),
        "256": TermInfo(width=80, height=24, term="xterm-256color"),
        "standard": TermInfo(width=80, height=24, term="xterm"),
    }
    names = ["truecolor", "truecolor", "256", "standard", "standard"]
    if order == "standard first":
        names.reverse()
    sent: list[list[bytes]] = [[] for _ in names]
    seated = await seat_apps(TABLE_SIZE, "gambit-colours-", [kinds[n] for n in names])
    try:
        for index, terminal in enumerate(seated.terminals):
            counted = terminal.send

            def keep(data: bytes, index: int = index, counted=counted) -> None:
                sent[index].append(data)
                counted(data)

            terminal.send = keep  # type: ignore[method-assign]  # a stand-in that counts or records
        for app in seated.apps:
            app.refresh()  # a whole screen, then the moves
        for _ in range(6):
            assert seated.move(seated.tables[0], "colours")
            await settle(seated.terminals, quiet=0.1)
        for name, data in zip(names, sent, strict=True):
            text = b"".join(data).decode("utf-8", "replace")
            assert text, name
            if name == "truecolor":
                assert TRUECOLOUR.search(text)
            else:
                assert not TRUECOLOUR.search(text), name
            if name == "standard":
                assert not EIGHT_BIT.search(text)
    finally:
        await seated.close()
