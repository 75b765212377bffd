"""The colour filter for terminals without colour: no colour parameter survives, attributes do,
and a light background under darker text becomes reverse video."""

from __future__ import annotations

import pytest

from server.terminal.no_colour import strip_colour


@pytest.mark.parametrize(
    ("sgr", "expected"),
    [
        ("\x1b[38;2;228;228;228;48;2;18;18;18mtext\x1b[0m", "text\x1b[0m"),
        ("\x1b[1;38;5;214;48;5;17mb\x1b[0m", "\x1b[1mb\x1b[0m"),
        ("\x1b[91mx", "x"),
        ("\x1b[97;100mx", "x"),
        ("\x1b[39;49;4mx", "\x1b[4mx"),
        ("\x1b[0;2;38;2;1;2;3mx", "\x1b[0;2mx"),
        ("\x1b[mx", "\x1b[0mx"),
        # A light background under dark text: a highlight, shown reversed.
        ("\x1b[38;2;0;0;0;48;2;208;208;208mrow", "\x1b[7mrow"),
        ("\x1b[1;30;107mrow", "\x1b[1;7mrow"),
        ("\x1b[48;5;252mrow", "\x1b[7mrow"),  # the terminal's own (light) text: reversed
        # ... one already reversed was dark on light: it stays as the terminal's own colours.
        ("\x1b[7;38;2;0;0;0;48;2;208;208;208mrow", "row"),
        # Text without SGR, cursor moves and other sequences pass as they are.
        ("\x1b[3;4Hplain\x1b[?25l", "\x1b[3;4Hplain\x1b[?25l"),
    ],
)
def test_colour_goes_attributes_stay(sgr, expected):
    assert strip_colour(sgr) == expected
