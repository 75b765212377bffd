"""An ended app taken apart, so that reference counting frees it at once, not a sweep later.

A Textual app is a web of reference cycles: every widget holds its children (its node list)
and its parent, its styles hold it back, its message loop's callbacks are its own bound
methods, and the app holds and is held by all of them. When a player leaves, nothing frees
that web but the cyclic collector; in an app worker, where everything alive is frozen out of
the collector's sight (``server/gc_freeze.py``), it waits for a *sweep*, which walks every
live object of the worker and stalls all its players meanwhile. In ``bench/soak.py`` (30
terminals coming and going) a worker's sweeps found 230,000-360,000 objects every few
minutes, about 5,800 per ended app (``bench/app_garbage.py --scenario ended``), each sweep a
pause of about a second for everyone on that worker, and the worker's memory held up to
a sweep's worth of ended apps between them.

Once the app's run is over nothing calls it again, so its cycles can be cut by hand: every
node the app ever registered (:class:`EveryNode`, in place of the app's own registry, a
``WeakSet`` that only remembers a node while it is alive), the virtual nodes Textual makes to
read a widget's component styles (remembered there too), every worker it ran
(:class:`EveryWorker`), its animator and the app itself have their attributes dropped. What
they held is then freed by reference counting, frozen or not, and the sweeps find the rest.

It waits :data:`AFTER` seconds after the run has ended: callbacks already queued on the loop
(a timer's last tick, a message posted during shutdown) run first against an app still whole.
What is left is a shell that answers only ``is_running`` (False): nothing may keep an ended
app to ask it anything later (``LocalApp.close`` lets go of it).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any
from weakref import WeakSet

from textual.css.stylesheet import Stylesheet

log = logging.getLogger(__name__)

#: Seconds between an app's run ending and its taking apart (see above).
AFTER = 1.0
#: Textual's own, which makes the virtual nodes (replaced: ``ended_apps.component_classes``).
_process_component_classes = Stylesheet._process_component_classes


class _RemembersEvery:
    """A set that also remembers, weakly, every item it ever held."""

    def __init__(self) -> None:
        super().__init__()
        self.ever: WeakSet[Any] = WeakSet()

    def add(self, item: Any) -> None:
        super().add(item)  # type: ignore[misc]  # (the set this is mixed into)
        self.ever.add(item)


class EveryNode(_RemembersEvery, WeakSet[Any]):
    """The app's registry of mounted nodes (a node removed while the app ran may still be
    alive in a cycle when it ends)."""


class EveryWorker(_RemembersEvery, set[Any]):
    """The app's set of running workers (a worker cancelled as the app ended keeps its
    ``CancelledError``, whose traceback's frames hold the worker and the app: a cycle that
    outlives the app's own)."""


def _process_component_classes_remembered(self: Stylesheet, node: Any) -> None:
    """``Stylesheet._process_component_classes``, the virtual nodes it makes to read
    ``node``'s component styles remembered by the app's registry: each is in a cycle with its
    styles, and those it replaced are unreachable but for the collector."""
    _process_component_classes(self, node)
    component_styles = node.__dict__.get("_component_styles")
    if not component_styles:
        return
    registry = _registry_of(node)
    if registry is not None:
        for styles in component_styles.values():
            virtual = getattr(styles, "node", None)
            if virtual is not None:
                registry.ever.add(virtual)


def _registry_of(node: Any) -> EveryNode | None:
    """The registry of ``node``'s app: up its parents, or (a node styled before it is
    attached) the app whose task styles it."""
    while node is not None:
        registry = node.__dict__.get("_registry")
        if registry is not None:
            return registry if isinstance(registry, EveryNode) else None
        parent = node._parent  # (a weak reference, read through Textual's property)
        if parent is None:
            try:
                parent = node.app
            except Exception:  # (no app is running in this task)
                return None
            if parent is node:
                return None
        node = parent
    return None


def parts_of(app: Any) -> list[Any]:
    """Every part of ``app`` still alive that is in a cycle: the nodes it registered, the
    virtual nodes of their component styles, the workers it ran, its animator and itself."""
    registry = getattr(app, "_registry", None)
    parts = list(registry.ever) if isinstance(registry, EveryNode) else []
    workers = getattr(app, "_workers", None)
    running = getattr(workers, "_workers", None)
    if isinstance(running, EveryWorker):
        parts.extend(running.ever)
    parts.extend(part for part in (workers, getattr(app, "_animator", None)) if part is not None)
    parts.append(app)
    return parts


def take_apart(app: Any) -> int:
    """Drop the attributes of every part of the ended ``app`` (see the module docstring);
    returns how many parts."""
    parts = parts_of(app)
    for part in parts:
        attributes = getattr(part, "__dict__", None)
        if attributes is not None:
            attributes.clear()
    app._running = False  # (its ``is_running`` still answers: it is not)
    return len(parts)


def take_apart_later(app: Any, run: asyncio.Future[Any]) -> None:
    """Take ``app`` apart :data:`AFTER` seconds after ``run`` (its run) is done."""
    loop = asyncio.get_running_loop()

    def when_done(_: asyncio.Future[Any]) -> None:
        if not loop.is_closed():  # (a process ending leaves it whole)
            loop.call_later(AFTER, _take_apart_logged, app)

    run.add_done_callback(when_done)


def _take_apart_logged(app: Any) -> None:
    try:
        take_apart(app)
    except Exception:  # (an app not taken apart is only collected later, as before)
        log.exception("could not take an ended app apart")
