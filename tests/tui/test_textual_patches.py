"""The corrections to Textual that many apps in one process need (``textual_patches``)."""

from __future__ import annotations

import ast
import dataclasses
import gc
from pathlib import Path
from types import SimpleNamespace

import pytest
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

import gambit_tui.app  # noqa: F401
from server.apphost import textual_layer  # (installed by conftest, as the server does)


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


def test_a_widgets_drawing_cache_is_not_kept_by_the_colours_it_asked_about():
    """``StylesCache.get_inner_outer`` was an ``lru_cache`` on the method: every widget's
    cache (and the lines it drew) stayed in it after the widget had gone (issue 43)."""
    import weakref

    from textual._styles_cache import StylesCache
    from textual.color import Color

    original = textual_layer.original(
        next(p for p in textual_layer.PATCHES if p.name == "textual_patches.inner_outer")
    )
    base, background = Color(18, 18, 18), Color(9, 69, 115, 0.5)
    asked = original(StylesCache(), base, background)
    original.cache_clear()  # (that widget's cache, in Textual's own)
    cache = StylesCache()
    gone = weakref.ref(cache)
    assert cache.get_inner_outer(base, background) == asked
    assert cache.get_inner_outer(base, background) is StylesCache().get_inner_outer(
        base, background
    )  # (one answer for every widget: the colours are the key)
    del cache
    assert gone() is None


class _Value:
    """A cached value whose end a weak reference sees."""


def _freed_by_reference_counting(drop) -> bool:
    """Whether a value held by an ``LRUCache`` is freed once ``drop(cache, key)`` lets go of
    it, with the cyclic collector off (so only reference counting can free it)."""
    import weakref

    from textual.cache import LRUCache

    gc.collect()
    gc.disable()
    try:
        cache: LRUCache[str, _Value] = LRUCache(8)
        value = _Value()
        gone = weakref.ref(value)
        cache["a"] = value
        cache["b"] = _Value()
        cache.get("a")  # (moved to the front of the ring)
        del value
        drop(cache, "a")
        return gone() is None
    finally:
        gc.enable()


def test_a_cleared_lru_cache_leaves_no_reference_cycle():
    """``LRUCache.clear`` let go of its ring of entries whole: a cycle, with every value it
    held, left for the collector (a ``DataTable``'s rendered rows at every lobby update)."""
    assert _freed_by_reference_counting(lambda cache, key: cache.clear())


def test_a_discarded_lone_lru_entry_leaves_no_reference_cycle():
    """A cache's only entry is a ring of one, which ``discard`` left pointing at itself."""

    def drop_both(cache, key):
        cache.discard("b")
        cache.discard(key)

    assert _freed_by_reference_counting(drop_both)


def test_an_lru_cache_serves_and_evicts_as_before_after_clears_and_discards():
    from textual.cache import LRUCache

    cache: LRUCache[int, str] = LRUCache(3)
    for round_ in range(3):
        for key in range(4):
            cache[key] = f"{round_}:{key}"
        assert list(cache.keys()) == [1, 2, 3]  # the oldest evicted
        assert cache.get(1) == f"{round_}:1"
        cache[4] = "new"  # evicts 2, the least recently used now
        assert 2 not in cache and cache[1] == f"{round_}:1" and cache[4] == "new"
        cache.discard(3)
        cache.discard(99)  # (not there: nothing happens)
        assert sorted(cache.keys()) == [1, 4] and len(cache) == 2
        cache.clear()
        assert len(cache) == 0 and cache.get(1) is None and not cache


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


# --- The one declared layer over Textual (server/apphost/textual_layer.py) -------------------

SERVER = Path(__file__).resolve().parents[2] / "server"
#: The two modules allowed to touch Textual's code and private modules directly.
LAYER = {"apphost/textual_layer.py", "apphost/textual_private.py"}


@pytest.mark.parametrize("patch", textual_layer.PATCHES, ids=lambda patch: patch.name)
def test_textuals_original_is_the_one_the_patch_was_written_for(patch):
    """One case per patch (and per original our code does the work of), named after it:
    after an upgrade, those whose original changed fail here by name (the fingerprints are
    of the originals' source)."""
    assert textual_layer.changed((patch,)) == []
    if patch.kind == textual_layer.INSTALLED:  # installed, as the app host does
        assert textual_layer.lookup(patch.owner, patch.attribute) is patch.replacement


def test_a_changed_original_is_refused_naming_its_patch(monkeypatch):
    """A Textual whose ``Strip.divide`` is not the one ``textual_patches.divide`` was written
    for: installing refuses, naming that patch (and only it), and installs nothing."""

    def divide(self, cuts):  # an upstream change, say
        return [self]

    monkeypatch.setitem(textual_layer._originals, "textual_patches.divide", divide)
    with pytest.raises(textual_layer.TextualChanged) as refused:
        textual_layer.check()
    assert str(refused.value).startswith("textual_patches.divide: Textual's Strip.divide ")
    assert len(str(refused.value).splitlines()) == 1

    class Standin:  # an owner whose original changed, not yet installed
        def divide(self, cuts):
            return []

    standin = dataclasses.replace(textual_layer.PATCHES[0], owner=Standin)
    with pytest.raises(textual_layer.TextualChanged, match=r"textual_patches\.divide"):
        textual_layer.install_all((standin,))
    assert Standin.__dict__["divide"] is not standin.replacement


def test_another_textual_version_is_refused(monkeypatch):
    monkeypatch.setattr(textual_layer, "textual_version", lambda: "8.3.0")
    with pytest.raises(textual_layer.TextualChanged, match=r"Textual 8\.3\.0 is installed"):
        textual_layer.check()


def test_a_per_app_patch_must_be_declared():
    app = SimpleNamespace()
    with pytest.raises(KeyError):
        textual_layer.on_instance("no.such.patch", app, None)
    with pytest.raises(ValueError):
        textual_layer.on_instance("textual_patches.divide", app, None)


def patches_outside_the_layer(sources: dict[str, str]) -> list[str]:
    """Outside textual_layer.py (and textual_private.py, which imports the private modules):
    each import of a private Textual module, assignment onto a class or module imported from
    Textual or from the app, and per-app patch's attribute set but by ``on_instance``."""
    per_app = {p.attribute for p in textual_layer.PATCHES if p.kind == textual_layer.PER_APP}
    found = []
    for name, source in sources.items():
        if name in LAYER:
            continue
        tree = ast.parse(source)
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                module = node.module if isinstance(node, ast.ImportFrom) else None
                for alias in node.names:
                    source = module or alias.name
                    if source.split(".")[0] in ("textual", "gambit_tui"):
                        imported.add(alias.asname or alias.name.split(".")[0])
                    if source.startswith("textual.") and "._" in f".{source}":
                        found.append(f"{name}:{node.lineno} imports {source}")
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if not isinstance(target, ast.Attribute):
                        continue
                    base = target.value
                    while isinstance(base, ast.Attribute):
                        base = base.value
                    if isinstance(base, ast.Name) and base.id in imported:
                        found.append(f"{name}:{node.lineno} assigns {ast.unparse(target)}")
                    elif target.attr in per_app:
                        found.append(f"{name}:{node.lineno} sets {ast.unparse(target)}")
    return found


def test_only_the_layer_touches_textuals_code_and_private_modules():
    sources = {
        str(path.relative_to(SERVER)): path.read_text(encoding="utf-8")
        for path in sorted(SERVER.rglob("*.py"))
    }
    assert patches_outside_the_layer(sources) == []


def test_the_check_finds_a_patch_outside_the_layer():
    """The scan finds each kind (so its empty answer about server/ means something)."""
    sources = {
        "apphost/patching.py": "from textual.strip import Strip\nStrip.divide = None\n",
        "apphost/private.py": "from textual._compositor import Compositor\n",
        "apphost/per_app.py": "def f(app):\n    app._display = None\n",
        "apphost/module.py": "import textual._callback\ntextual._callback.x = 1\n",
    }
    found = patches_outside_the_layer(sources)
    for expected in (
        "apphost/patching.py:2 assigns Strip.divide",
        "apphost/private.py:1 imports textual._compositor",
        "apphost/per_app.py:2 sets app._display",
        "apphost/module.py:1 imports textual._callback",
        "apphost/module.py:2 assigns textual._callback.x",
    ):
        assert expected in found
