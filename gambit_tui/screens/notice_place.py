"""Where a screen's notices (Textual's toasts) go: over an area the screen names, a panel of
secondary information, not bottom right where Textual puts them.

At a table the bottom right holds the hand, the question and the keys: at 80x24 a notice
("Back at the tables.", a player left, an error) hid the right half of the hand and of the
question for its time. A screen names its area again whenever its layout changes (a bid row
shown, a two-row footer, chat opened, a resize): :class:`NoticePlace` follows the screen's
layouts and lays Textual's rack of toasts over that area, from its top, right-aligned, the
newest first. Once the notices fill it, the oldest are cut off at its bottom: the stack
never grows over what lies beyond.

Only Textual's public API: the rack is found by its CSS type name (its module is private)
and given inline styles; the screen's layout signal says when to look again.
"""

from __future__ import annotations

from collections.abc import Callable
from weakref import WeakSet

from textual.geometry import Region, Size
from textual.screen import Screen
from textual.widget import Widget

#: Textual's container of a screen's toasts (``textual.widgets._toast.ToastRack``), by its
#: CSS type name. Textual docks it at the bottom of the screen, toasts aligned right and bottom.
RACK = "ToastRack"

#: The class a screen has while its notices lie over its area (TableScreen's CSS makes its
#: toasts compact then, and takes the rack's scroll gutter away).
PLACED = "-notices-placed"

#: The rack's rules :func:`lay_rack` sets inline (cleared again for Textual's own place).
RULES = ("dock", "align_vertical", "margin", "padding", "max_height")


def lay_rack(rack: Widget, area: Region | None) -> None:
    """Lay ``rack`` over ``area`` of the screen: docked at the top, from the area's top row
    (which the first toast's margin leaves blank: a panel's border), no lower than its
    bottom, its toasts within its columns, right-aligned. None: Textual's place again."""
    styles = rack.styles
    if area is None:
        for rule in RULES:
            styles.clear_rule(rule)
        rack.refresh(layout=True)
        return
    width = rack.screen.size.width
    styles.dock = "top"
    styles.align_vertical = "top"
    styles.margin = (max(0, area.y), 0, 0, 0)
    styles.padding = (0, max(0, width - area.right), 0, max(0, area.x))
    styles.max_height = max(1, area.height)


class NoticePlace:
    """Keeps ``screen``'s notices over the area ``area`` names (a region of the screen, or
    None for Textual's place), looking again after each of the screen's layouts."""

    def __init__(self, screen: Screen, area: Callable[[], Region | None]) -> None:
        self.screen = screen
        self.area = area
        #: The rack, the area it was laid over last, and the screen's size then.
        self._laid: tuple[Widget, Region | None, Size] | None = None
        #: The toasts in the rack already put in order (see _newest_first).
        self._ordered: WeakSet[Widget] = WeakSet()

    def follow(self) -> None:
        """Look again after every layout of the screen (call once it is mounted)."""
        self.screen.screen_layout_refresh_signal.subscribe(
            self.screen, lambda _screen: self.update(), immediate=True
        )

    def update(self) -> None:
        """Lay the rack over the area the screen names now, if that changed (a layout that
        changes nothing here costs a comparison)."""
        screen = self.screen
        area = self.area()
        if area is not None and (area.width < 1 or area.height < 1):
            area = None
        laid = self._laid
        rack = laid[0] if laid is not None else None
        if rack is None or not rack.is_attached:  # (a recomposed screen has a new one)
            racks = screen.query_children(RACK)
            if not racks:  # (an app without notifications has none)
                return
            rack = racks.first()
            laid = None
        if laid is None or laid != (rack, area, screen.size):
            self._laid = (rack, area, screen.size)
            lay_rack(rack, area)
            screen.set_class(area is not None, PLACED)
        if area is not None:
            self._newest_first(rack)

    def _newest_first(self, rack: Widget) -> None:
        """Put each toast Textual mounted since the last look first in the rack: once the
        notices fill the area, the oldest are cut off at its bottom, the newest in sight.
        (Textual mounts a toast last, and scrolls the rack to it; a rack that is not drawn
        itself is never given a size to scroll, and the newest went unseen.) A new notice
        goes on top of the others, which stay where they were."""
        children = rack.children
        if not children or children[-1] in self._ordered:
            return
        for child in [child for child in children if child not in self._ordered]:
            if children[0] is not child:  # (a lone toast stays: no layout for nothing)
                rack.move_child(child, before=0)  # (in the order mounted: the newest first)
        self._ordered = WeakSet(children)


def right_part(region: Region, share: float = 0.5) -> Region:
    """The right ``share`` of a panel's ``region``, without its right border's column: notices
    there leave the rest of the panel to read, and its frame in sight."""
    left = region.width - int(region.width * share)
    return Region(region.x + left, region.y, region.width - left - 1, region.height)
