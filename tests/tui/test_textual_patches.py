"""The corrections to Textual that many apps in one process need (``textual_patches``)."""

from __future__ import annotations

import gc

from rich.segment import Segment
from textual.strip import Strip

import gambit_tui.app  # noqa: F401  (installs the patches, as the server does)


def test_a_strip_divided_at_its_end_leaves_no_reference_cycle():
    gc.collect()
    gc.disable()
    try:
        strip = Strip([Segment("ab"), Segment("cd")])
        assert strip.divide([4]) == [strip]
        del strip
        assert gc.collect() == 0  # freed by reference counting alone
    finally:
        gc.enable()


def test_other_cuts_divide_as_textual_does():
    strip = Strip([Segment("abcd"), Segment("ef")])
    parts = strip.divide([1, 5, 6])
    assert [part.text for part in parts] == ["a", "bcde", "f"]
    assert strip.divide([1, 5, 6]) is parts  # Textual's own cache still serves them
    assert strip.divide([9]) == []  # a cut past the end is ignored, as Textual does
