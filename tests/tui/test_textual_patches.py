"""The corrections to Textual that many apps in one process need (``textual_patches``)."""

from __future__ import annotations

import gc

import pytest
from rich.segment import Segment
from rich.style import Style
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


def test_a_strip_makes_its_caches_when_first_used_and_they_still_serve():
    strip = Strip([Segment("abcd"), Segment("ef")])
    for name in ("_crop_cache", "_style_cache", "_divide_cache", "_filter_cache"):
        with pytest.raises(AttributeError):
            object.__getattribute__(strip, name)  # not made yet
    gc.collect()
    before = len(gc.get_objects())
    strips = [Strip([Segment("x")], 1) for _ in range(1000)]
    # A segment, its list and the strip: 3 objects each (with seven caches made at once, 10).
    assert len(gc.get_objects()) - before < 4000
    del strips
    cropped = strip.crop(1, 5)
    assert cropped.text == "bcde"
    assert strip.crop(1, 5) is cropped  # the crop cache, made on first use, answers
    styled = strip.apply_style(Style(bold=True))
    assert strip.apply_style(Style(bold=True)) is styled
    with pytest.raises(AttributeError):
        strip._no_such_attribute  # noqa: B018


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

    from server.apphost import textual_patches

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


async def test_repainting_only_the_changed_rows_draws_the_cells_textual_draws(hub):
    """On a real table screen (with the result panel over it), for many sets of changed
    regions: the same strips, row by row, as Textual's own compositor gives."""
    import random

    from textual.geometry import Region

    from server.apphost import textual_patches
    from tests.tui.conftest import enter_lobby, make_app, start_pg_deal

    from .test_pg_table import play_deal_by_keys

    def rows_drawn(compositor, crop, lines, render) -> list[list[tuple[str, object]]]:
        chops = render(compositor, crop, lines.__contains__)
        return [
            [(piece.text, piece.style) for piece in Strip.join(chops[y].values())]
            for y in sorted(lines)
        ]

    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await start_pg_deal(pilot)
        rng = random.Random(5)
        for stage in ("playing", "result"):
            if stage == "result":
                await play_deal_by_keys(pilot)
            compositor = app.screen._compositor
            width, height = compositor.size
            for _ in range(60):
                regions = []
                for _ in range(rng.randint(1, 4)):
                    x, y = rng.randrange(width), rng.randrange(height)
                    regions.append(
                        Region(x, y, rng.randint(1, width - x), rng.randint(1, height - y))
                    )
                crop = Region.from_union(regions)
                lines = {y for r in regions for y in range(r.y, r.bottom)}
                ours = rows_drawn(
                    compositor, crop, lines, textual_patches._render_chops_of_changed_rows
                )
                theirs = rows_drawn(compositor, crop, lines, textual_patches._render_chops)
                assert ours == theirs, (stage, regions)
