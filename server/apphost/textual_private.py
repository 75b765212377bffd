"""Every name the server takes from a private Textual module, imported here and only here.

Textual's public API does not name these, and nothing promises they stay: a release that
moves one breaks the import of this module, and nothing else. Who uses what:

- ``textual._callback`` (its ``count_parameters``): :mod:`.textual_patches` replaces it.
- ``textual._compositor``: ``Compositor`` (:mod:`.textual_patches`, :mod:`.laid_out_map`
  replace methods of it), ``CompositorMap``, ``ReflowResult`` (:mod:`.laid_out_map`),
  ``ChopsUpdate``, ``LayoutUpdate`` (the frames the driver takes as pieces,
  ``server/terminal/chops_display.py`` and ``driver.py``).
- ``textual._xterm_parser``: ``XTermParser``, which turns a player's keys into events
  (``server/terminal/driver.py``; Textual's own drivers use it the same way).
- ``textual.widgets._data_table``: ``ColumnKey``, ``RowKey`` (:mod:`.data_table_rows`).
- ``textual._styles_cache``: ``StylesCache`` (:mod:`.textual_patches` replaces a method).

The patches that replace Textual's code are declared in :mod:`.textual_layer`.
"""

from __future__ import annotations

import textual._callback as callback_module
from textual._compositor import ChopsUpdate, Compositor, CompositorMap, LayoutUpdate, ReflowResult
from textual._styles_cache import StylesCache
from textual._xterm_parser import XTermParser
from textual.widgets._data_table import ColumnKey, RowKey

#: The private Textual modules imported above (tests check no other module imports one).
PRIVATE_MODULES = (
    "textual._callback",
    "textual._compositor",
    "textual._styles_cache",
    "textual._xterm_parser",
    "textual.widgets._data_table",
)

__all__ = [
    "PRIVATE_MODULES",
    "ChopsUpdate",
    "ColumnKey",
    "Compositor",
    "CompositorMap",
    "LayoutUpdate",
    "ReflowResult",
    "RowKey",
    "StylesCache",
    "XTermParser",
    "callback_module",
]
