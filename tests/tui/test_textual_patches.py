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


def test_partials_count_their_parameters_as_textual_does_and_once():
    import inspect
    from functools import partial

    import textual._callback

    class Widget:
        def handler(self, a, b):
            return a, b

        @classmethod
        def make(cls, a):
            return a

    def plain(a, b, c):
        return a

    count = textual._callback.count_parameters
    widget = Widget()
    cases = [
        (partial(widget.handler), 2),
        (partial(widget.handler, 1), 1),
        (partial(plain, 1, c=3), 1),
        (partial(Widget.make), 1),
        (partial(print), textual._callback._count_parameters(print)),
    ]
    for func, expected in cases:
        assert count(func) == expected, func
    calls = []
    original = inspect.signature

    def counting(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    from gambit_tui import textual_patches

    modules = (textual._callback, textual_patches)
    try:
        for module in modules:
            module.signature = counting
        for _ in range(3):
            assert count(partial(Widget().handler, 1)) == 1
    finally:
        for module in modules:
            module.signature = original
    assert calls == []  # counted once, on the function, not once per call
