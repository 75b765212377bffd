"""Each app's text in the colours its player's terminal has, though styles and strips are
shared by every app in the process.

Textual turns a style into its terminal codes once and keeps them on the style
(``Style._ansi``, set by ``Strip.render_ansi`` for whatever colour system asked first), and a
strip into its text once and keeps that on the strip (``Strip._render_cache``). In one app
the colour system never changes, so that is right. Many apps in one process share styles
(Rich's and Textual's style caches, the CSS shared by every app: ``shared_styles.py``) and
some strips (rows shared by a worker's apps), and each app renders at its own player's depth
(``colour_depth.py``): the first app to draw a style fixed its codes for all, so a player on a
16- or 256-colour terminal got 24-bit colour codes once a truecolor player had drawn the same
style (their terminal shows wrong colours or stray characters).

Here what is kept on the style and the strip is the rendering at one depth, the process's
*home* depth: the first one any app draws at (in a worker, most players' terminals are
alike; the depth Textual renders at when a console says none counts as truecolor). The other
depths are kept beside them, per depth, by the style's or strip's identity (each entry holds
its object, so its ``id`` is not reused while the entry lives): a little dearer, for the
players whose terminal differs from the first one's.

Private names used: Textual's ``Strip.render``, ``Strip.render_style``,
``Strip.render_ansi``, ``Strip._render_cache``, ``Strip._segments`` (and ``Strip.join``
building a strip's ``_render_cache`` from its parts': truecolor texts, so still right);
Rich's ``Style._ansi``, ``_attributes``, ``_set_attributes``, ``_color``, ``_bgcolor``,
``_link``, ``_link_id``, ``Console._color_system``. Guarded by
``tests/tui/test_colour_codes.py``.
"""

from __future__ import annotations

import gc
from typing import Any

from rich.color import ColorSystem
from rich.console import Console
from rich.style import Style
from textual.strip import SGR_STYLES, Strip

from gambit_tui.shared_memos import shared_memo

TRUECOLOR = ColorSystem.TRUECOLOR
#: Entries kept per colour depth other than truecolor: styles (small, and a few thousand in
#: use), and strips (kept alive by their entry; a strip is mostly drawn once, but a row
#: shared by a worker's apps is drawn by each).
STYLES_KEPT = 16_384
STRIPS_KEPT = 1_024

#: The depth whose codes and texts Textual's own slots hold (see above): set by the first render.
_home: ColorSystem | None = None
_codes: dict[ColorSystem, dict[int, tuple[Any, str]]] = shared_memo("style codes", {})
_texts: dict[ColorSystem, dict[int, tuple[Any, str]]] = shared_memo("strip texts", {})


def codes_for(style: Style, color_system: ColorSystem) -> str:
    """The SGR parameters of ``style`` at ``color_system`` (Textual's ``render_ansi``)."""
    if attributes := style._attributes & style._set_attributes:
        sgr = [SGR_STYLES[bit] for bit in range(attributes.bit_length()) if attributes & (1 << bit)]
    else:
        sgr = []
    if (color := style._color) is not None:
        sgr.extend(color.downgrade(color_system).get_ansi_codes())
    if (bgcolor := style._bgcolor) is not None:
        sgr.extend(bgcolor.downgrade(color_system).get_ansi_codes(False))
    return ";".join(sgr)


def _ansi(style: Style, color_system: ColorSystem) -> str:
    if color_system is _home:
        ansi = style._ansi
        if ansi is None:
            ansi = style._ansi = codes_for(style, color_system)
        return ansi
    if _home is None:
        _settle_home(color_system)
        return _ansi(style, color_system)
    return _kept(_codes, STYLES_KEPT, style, color_system, codes_for)


def _kept(
    caches: dict[ColorSystem, dict[int, tuple[Any, str]]],
    limit: int,
    made: Any,
    color_system: ColorSystem,
    make: Any,
) -> str:
    """What ``make(made, color_system)`` gives, kept per depth by ``made``'s identity."""
    kept = caches.get(color_system)
    if kept is None:
        kept = caches[color_system] = {}
    found = kept.get(id(made))
    if found is not None and found[0] is made:
        return found[1]
    value = make(made, color_system)
    if len(kept) >= limit:
        kept.clear()
    kept[id(made)] = (made, value)
    return value


def _render_ansi(cls: Any, style: Style, color_system: ColorSystem) -> str:
    return _ansi(style, color_system)


def _render_style(cls: Any, style: Style, text: str, color_system: ColorSystem) -> str:
    ansi = _ansi(style, color_system)
    output = f"\x1b[{ansi}m{text}\x1b[0m" if ansi else text
    if style._link:
        output = f"\x1b]8;id={style._link_id};{style._link}\x1b\\{output}\x1b]8;;\x1b\\"
    return output


def _text(strip: Strip, color_system: ColorSystem) -> str:
    return "".join(
        [
            text if style is None else _render_style(None, style, text, color_system)
            for text, style, _ in strip._segments
        ]
    )


def _settle_home(color_system: ColorSystem) -> None:
    global _home
    _home = color_system


def _render(self: Strip, console: Console) -> str:
    color_system = console._color_system or TRUECOLOR
    if color_system is _home:
        text = self._render_cache
        if text is None:
            text = self._render_cache = _text(self, color_system)
        return text
    if _home is None:
        _settle_home(color_system)
        return _render(self, console)
    return _kept(_texts, STRIPS_KEPT, self, color_system, _text)


def forget_rendered() -> None:
    """Before the first install: codes and texts some app drew before (at whatever depth) are
    forgotten, since the slots hold the home depth's from then on (a server installs this
    before any app draws; a test process may have drawn apps without it)."""
    if Strip.render is _render:
        return
    for made in gc.get_objects():
        kind = type(made)
        if kind is Style:
            made._ansi = None
        elif kind is Strip:
            made._render_cache = None
