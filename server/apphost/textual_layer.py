"""Every change the server makes to Textual's code, declared in one place and checked on install.

A hundred apps in one process need more of Textual than its public API gives
(``docs/textual-patches.md`` says why, patch by patch). Each change is a :class:`Patch`: the
Textual object and attribute it replaces, what replaces it, and a fingerprint of the original
it was written against (a hash of the original's source). :func:`install_all` installs them
only on the Textual versions they were written for (:data:`WRITTEN_FOR`) and only when every
original still has its fingerprint; otherwise it refuses, naming each patch whose original
changed. An upgrade of Textual thus fails in one test (``tests/tui/test_textual_patches.py``,
one case per patch, named after it), not somewhere in the suite by a symptom.

Patches of one app's attributes (its error handler, its display) are declared here too and set
by :func:`on_instance`, which refuses a name not declared. Our own widgets' fast paths are
theirs (``LineInput.quiet_layout``, ``TextLines.quiet_layout``, ``GambitScreen.draw_screen_now``
...): the host only switches them on (:func:`install_all`).

To update after an upgrade: read the new original of each failing patch, carry the change into
the replacement (or drop the patch), then print the new fingerprints with
``python -m server.apphost.textual_layer`` and copy them here.
"""

from __future__ import annotations

import hashlib
import inspect
from dataclasses import dataclass
from importlib.metadata import version
from types import ModuleType
from typing import Any

from rich.console import Console
from rich.style import Style
from textual.app import App
from textual.cache import LRUCache
from textual.css.stylesheet import Stylesheet
from textual.message_pump import MessagePump
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import DataTable
from textual.worker_manager import WorkerManager

from gambit_tui.screens.base import GambitScreen
from gambit_tui.widgets.footer import GambitFooter
from gambit_tui.widgets.line_input import LineInput
from gambit_tui.widgets.text_lines import TextLines

from . import (
    colour_codes,
    data_table_rows,
    draw_now,
    ended_apps,
    hidden_screens,
    laid_out_map,
    quiet_prompts,
    shared_styles,
    shown_bindings,
    textual_patches,
)
from .textual_private import Compositor, StylesCache, callback_module

#: The Textual versions every fingerprint below was taken from: at least the first, below the
#: second (pyproject.toml pins ``textual~=8.2.8``).
WRITTEN_FOR = ((8, 2, 8), (8, 3))

#: The fingerprint of an attribute the owner does not have (a patch adds it).
ABSENT = "absent"


class TextualChanged(RuntimeError):
    """Textual is not the version, or an original not the code, a patch was written for."""


#: How a patch is applied: installed on Textual's class or module by :func:`install_all`, set
#: on one app's object by :func:`on_instance`, or not at all (code of ours that does what a
#: Textual original does, or reads what it keeps, so it must change when that original does).
INSTALLED, PER_APP, READ = "installed", "per app", "read"


@dataclass(frozen=True)
class Patch:
    """One change to Textual: ``owner.attribute`` becomes ``replacement`` (or, by ``kind``, is
    set per app, or is only relied on).

    ``fingerprint`` is :func:`fingerprint` of the original (of ``guard``'s, ``(owner, name)``,
    where the original is data that the guarded function uses)."""

    name: str
    owner: type | ModuleType
    attribute: str
    fingerprint: str
    replacement: Any = None
    guard: tuple[type | ModuleType, str] | None = None
    kind: str = INSTALLED


def _per_app(name: str, owner: type, attribute: str, fingerprint: str, **kw: Any) -> Patch:
    return Patch(name, owner, attribute, fingerprint, None, kind=PER_APP, **kw)


def _read(name: str, owner: type, attribute: str, fingerprint: str) -> Patch:
    return Patch(name, owner, attribute, fingerprint, None, kind=READ)


#: Every patch, in the order they are installed.
PATCHES: tuple[Patch, ...] = (
    # textual_patches: small corrections (docs/textual-patches.md 1-4, 9, 14, 15).
    Patch(
        "textual_patches.divide",
        Strip,
        "divide",
        "f6764f25c39e144b",
        textual_patches._divide_without_cycle,
    ),
    Patch(
        "textual_patches.strip_init",
        Strip,
        "__init__",
        "ce1d8154dca8cfd7",
        textual_patches._init_strip_without_caches,
    ),
    Patch(
        "textual_patches.strip_caches",
        Strip,
        "__getattr__",
        ABSENT,
        textual_patches._make_strip_cache,
    ),
    Patch(
        "textual_patches.count_parameters",
        callback_module,
        "count_parameters",
        "1cfb1fbbe594186f",
        textual_patches._count_parameters_of_partials_too,
    ),
    Patch(
        "textual_patches.changed_rows",
        Compositor,
        "_render_chops",
        "ca8c3359d7afd017",
        textual_patches._render_chops_of_changed_rows,
    ),
    Patch(
        "textual_patches.parse_rules",
        Stylesheet,
        "_parse_rules",
        "2f1c2d220b672d1b",
        textual_patches._parse_rules_once_per_process,
    ),
    Patch(
        "textual_patches.start_messages",
        MessagePump,
        "_start_messages",
        "3510c4c50d026583",
        textual_patches._start_messages_named_by_class,
    ),
    Patch(
        "textual_patches.inner_outer",
        StylesCache,
        "get_inner_outer",
        "d2509f3e796680df",
        textual_patches._inner_outer_by_colours,
    ),
    Patch(
        "textual_patches.lru_clear",
        LRUCache,
        "clear",
        "840350756f822f0d",
        textual_patches._clear_without_cycles,
    ),
    Patch(
        "textual_patches.lru_discard",
        LRUCache,
        "discard",
        "3dbe5f7f2fc8f50a",
        textual_patches._discard_without_cycle,
    ),
    # ended_apps: the virtual nodes of component styles remembered (docs/textual-patches.md 16).
    Patch(
        "ended_apps.component_classes",
        Stylesheet,
        "_process_component_classes",
        "852b5e4b93c6fc25",
        ended_apps._process_component_classes_remembered,
    ),
    # colour_codes: each app's colour depth, though styles are shared.
    Patch(
        "colour_codes.render_ansi",
        Strip,
        "render_ansi",
        "08043dedb90d50a7",
        classmethod(colour_codes._render_ansi),
    ),
    Patch(
        "colour_codes.render_style",
        Strip,
        "render_style",
        "749d890bb5c43510",
        classmethod(colour_codes._render_style),
    ),
    Patch("colour_codes.render", Strip, "render", "2ba7a4913a72125d", colour_codes._render),
    Patch(
        "shared_styles.apply",
        Stylesheet,
        "apply",
        "1faf3687bbba428f",
        shared_styles.apply_shared,
    ),
    Patch(
        "hidden_screens.background_screens",
        App,
        "_background_screens",
        "d925a6b094052092",
        property(hidden_screens.background_screens),
    ),
    Patch(
        "laid_out_map.full_map",
        Compositor,
        "full_map",
        "cecfd00ffbfaf055",
        property(laid_out_map._full_map_keeping_the_laid_out),
    ),
    Patch(
        "laid_out_map.reflow",
        Compositor,
        "reflow",
        "a08580a81a779473",
        laid_out_map._reflow_from_the_laid_out,
    ),
    Patch("laid_out_map.clear", Compositor, "clear", "899ec58aa80a03e8", laid_out_map._clear_all),
    Patch(
        "quiet_prompts.check_idle",
        MessagePump,
        "check_idle",
        "f4962efef0636f26",
        quiet_prompts.check_idle,
    ),
    Patch(
        "data_table_rows.update_cell",
        DataTable,
        "update_cell",
        "117f6ee504bc006b",
        data_table_rows.update_cell,
    ),
    Patch(
        "data_table_rows.on_idle",
        DataTable,
        "_on_idle",
        "d94152378c36b0c2",
        data_table_rows.on_idle,
    ),
    # Set on each app (app_settings.prepare_app, server/terminal/driver.py).
    _per_app("app_settings.log_crashes", App, "_handle_exception", "baea2e7f88e7ac52"),
    _per_app(
        "app_settings.stray_stdout",
        App,
        "_capture_stdout",
        "7934609529be85be",
        guard=(App, "_process_messages"),
    ),
    _per_app(
        "app_settings.stray_stderr",
        App,
        "_capture_stderr",
        "7934609529be85be",
        guard=(App, "_process_messages"),
    ),
    _per_app(
        "colour_depth.color_system",
        Console,
        "_color_system",
        "c3afb9aef38d2a1b",
        guard=(Console, "color_system"),
    ),
    _per_app("ended_apps.registry", App, "_registry", "8b2138af0f6bb490", guard=(App, "_register")),
    _per_app(
        "ended_apps.workers",
        WorkerManager,
        "_workers",
        "a64123523f22ebf3",
        guard=(WorkerManager, "add_worker"),
    ),
    _per_app("driver.full_repaints", App, "_display", "4b78dff6669a455c"),
    _per_app("chops_display.display", App, "_display", "4b78dff6669a455c"),
    # Code of ours that does what these originals do, or reads what they keep.
    _read("draw_now.check_refresh", Widget, "_check_refresh", "ad1c8196be9747bf"),
    _read("draw_now.on_update", Screen, "_on_update", "8d962c0761ddb02e"),
    _read("draw_now.on_layout", Screen, "_on_layout", "55209a37fad6f883"),
    _read("draw_now.on_update_scroll", Screen, "_on_update_scroll", "4dc07a423afef330"),
    _read("draw_now.on_timer_update", Screen, "_on_timer_update", "421401660de142c5"),
    _read("ended_apps.start_widget", App, "_start_widget", "82b8c97aaa60e9f3"),
    _read("ended_apps.unregister", App, "_unregister", "1cc24101a8c6dda7"),
    _read("ended_apps.remove_worker", WorkerManager, "_remove_worker", "16b339a7ae2c694b"),
    _read("shown_bindings.active_bindings", Screen, "active_bindings", "511c420b9cbd94b2"),
    _read("colour_codes.make_ansi_codes", Style, "_make_ansi_codes", "c55d3213253e0723"),
    _read("colour_codes.join", Strip, "join", "49cd3104a078d503"),
    _read("shared_styles.replace_rules", Stylesheet, "replace_rules", "2db1c7976ac6aa11"),
    _read("data_table_rows.render_cell", DataTable, "_render_cell", "56c87899a3bfc4da"),
    _read(
        "data_table_rows.render_line_in_row", DataTable, "_render_line_in_row", "669cc46a7ca119d2"
    ),
    _read("data_table_rows.row_renderables", DataTable, "_get_row_renderables", "4766e26ce80d09dd"),
    _read("data_table_rows.render_line", DataTable, "_render_line", "a32c6991165cea90"),
    _read("data_table_rows.get_offsets", DataTable, "_get_offsets", "9b28e6f6d6b488ff"),
)

_BY_NAME = {patch.name: patch for patch in PATCHES}
#: Textual's originals of the patches installed, by patch name.
_originals: dict[str, Any] = {}
#: The patches :func:`install_all` last installed (checked), or None.
_installed: tuple[Patch, ...] | None = None


def textual_version() -> str:
    return version("textual")


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".")[:3] if part.isdigit())


def lookup(owner: type | ModuleType, attribute: str) -> Any:
    """``owner``'s own ``attribute`` as stored (a property or classmethod as such), from the
    class or the first of its bases that has it; None if none has."""
    if isinstance(owner, ModuleType):
        return vars(owner).get(attribute)
    for cls in owner.__mro__:
        if attribute in cls.__dict__:
            return cls.__dict__[attribute]
    return None


def fingerprint(value: Any) -> str:
    """A hash of the source of ``value`` (a function, or a property's or classmethod's),
    :data:`ABSENT` for None."""
    if value is None:
        return ABSENT
    if isinstance(value, property):
        functions = [f for f in (value.fget, value.fset, value.fdel) if f is not None]
    elif isinstance(value, (classmethod, staticmethod)):
        functions = [value.__func__]
    else:
        functions = [value]
    source = "".join(inspect.getsource(function) for function in functions)
    return hashlib.sha256(source.encode()).hexdigest()[:16]


def original(patch: Patch) -> Any:
    """What ``patch`` replaces (or, for a guard, what it relies on), as Textual has it."""
    if patch.guard is not None:
        return lookup(*patch.guard)
    if patch.name in _originals:
        return _originals[patch.name]
    return lookup(patch.owner, patch.attribute)


def changed(patches: tuple[Patch, ...] = PATCHES) -> list[str]:
    """Why each of ``patches`` whose original is not the one it was written for cannot be
    installed (empty: all can)."""
    found = []
    for patch in patches:
        now = fingerprint(original(patch))
        if now != patch.fingerprint:
            where = patch.guard or (patch.owner, patch.attribute)
            found.append(
                f"{patch.name}: Textual's {_named(*where)} is not the one this patch was "
                f"written for (fingerprint {now}, expected {patch.fingerprint})"
            )
    return found


def _named(owner: type | ModuleType, attribute: str) -> str:
    return f"{getattr(owner, '__qualname__', owner.__name__)}.{attribute}"


def check(patches: tuple[Patch, ...] = PATCHES) -> None:
    """Refuse (:class:`TextualChanged`) a Textual other than the one ``patches`` fit."""
    low, high = WRITTEN_FOR
    have = textual_version()
    if not low <= _version_tuple(have) < high:
        raise TextualChanged(
            f"Textual {have} is installed; the server's patches (server/apphost/textual_layer.py)"
            f" were written for {'.'.join(map(str, low))} up to {'.'.join(map(str, high))}"
        )
    problems = changed(patches)
    if problems:
        raise TextualChanged("\n".join(problems))


def install_all(patches: tuple[Patch, ...] = PATCHES, *, checked: bool = True) -> None:
    """Check, then install every patch and switch our widgets' fast paths on (idempotent:
    checked once per process). Unchecked only for tests, which report each change."""
    global _installed
    if checked and _installed is not patches:
        check(patches)
    colour_codes.forget_rendered()
    for patch in patches:
        if patch.kind != INSTALLED:
            continue
        if patch.name not in _originals:
            _originals[patch.name] = lookup(patch.owner, patch.attribute)
        setattr(patch.owner, patch.attribute, patch.replacement)
    _installed = patches
    LineInput.quiet_layout = True
    TextLines.quiet_layout = True
    GambitScreen.draw_screen_now = draw_now.draw_now
    GambitScreen.run_as_screen = draw_now.run_as_screen
    GambitFooter.shown_bindings = shown_bindings.shown_bindings


def on_instance(name: str, target: Any, value: Any) -> None:
    """Set the per-app patch ``name`` on ``target`` (an app, or its console)."""
    patch = _BY_NAME[name]
    if patch.kind != PER_APP:
        raise ValueError(f"{name} is not a patch of one app's object")
    if _installed is None:
        check((patch,))
    setattr(target, patch.attribute, value)


def restore(name: str) -> None:
    """Put Textual's own original of the installed patch ``name`` back (benchmarks measure
    without one: ``bench/table_updates.py --without``)."""
    patch = _BY_NAME[name]
    setattr(patch.owner, patch.attribute, _originals[name])


if __name__ == "__main__":  # the fingerprints of the originals installed now
    for patch in PATCHES:
        print(f"{patch.name}: {fingerprint(original(patch))}")
