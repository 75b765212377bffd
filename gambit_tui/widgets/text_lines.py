"""A widget drawn from a rich ``Text``, a line at a time, repainting only the lines that changed.

Under load the server draws every table for every seated player after every move, all in one
process. Textual's general path for a widget's ``render()`` (a Visual, then Content, then
wrapping and formatting) cost 0.3–0.5 ms per line, and any change repainted the whole widget:
its border, padding and every line. Table widgets hold short lines of which a move changes one
or two, so this class turns their text into strips directly (Textual's Line API), compares the
new lines with the ones on screen, and asks Textual to repaint just the rows that differ.

Textual still draws the border, the padding and the border title (its styles cache did that
again for every row of every repaint): a row is the new text joined to the sides Textual drew
beside one row, learnt again on every full repaint, the moments Textual clears its own cache.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import Any, ClassVar, Generic, Self, TypeVar

from rich.containers import Lines
from rich.style import Style
from rich.text import Text
from textual.content import Content
from textual.filter import ANSIToTruecolor, DimFilter, LineFilter, Monochrome, NoColor
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from gambit_tui.shared_memos import shared_memo

from ..shared_lines import TRANSITIONS, SharedList

T = TypeVar("T")
_UNSET = object()

#: Per screen, the widgets whose text changed during the message being handled: compared and
#: repainted in one pass after it (one callback for the screen, not one per widget).
_dirty: weakref.WeakKeyDictionary[Any, list[TextLines]] = weakref.WeakKeyDictionary()


#: Lines already turned into strips, by their text, spans, width and base style, for every
#: app in the process: the players at a table see mostly the same lines (a log line, a seat),
#: and rich's ``Text.render`` was the costliest part of drawing a changed row. Strips are
#: never changed once made, so sharing them shares nothing that differs between players.
_made_strips: dict[tuple[object, ...], Strip] = shared_memo("strips", {})
#: ... at most this many (the oldest made go first).
MADE_STRIPS = 4096

#: Those strips as the app's line filters leave them (ANSI colours made true colours, a
#: monochrome theme...), by strip, filters and background: filtering a row was a tenth of an
#: app update, and the players at a table get the same new lines. Each entry keeps its strip,
#: so the strip's ``id`` in the key cannot be reused while the entry lives.
_filtered_strips: dict[tuple[object, ...], tuple[Strip, Strip]] = shared_memo("filtered strips", {})


#: Content rows joined to what Textual draws beside them, by the content row (filtered), the
#: sides (their segments: alike in every app with the same theme) and the console's colour
#: system, for every app in the process: the players at a table get the same changed rows,
#: and each app joined, cut and rendered its own copy (the driver sends a strip as
#: ``Strip.render`` writes it, once per strip: a shared row is rendered once, for the colour
#: system in its key). Each entry keeps its content row, so its ``id`` is not reused.
_framed_rows: dict[tuple[object, ...], tuple[Strip, Strip]] = shared_memo("framed rows", {})


#: The fewest changed rows a widget repaints whole: the driver scrolls two rows or more, and
#: at least one row is new (server/terminal/screen_diff.py).
SCROLLED = 3


def _filter_key(line_filter: LineFilter, ansi_theme: object) -> object:
    """What a filter's output depends on: alike for the same kind of filter in every app,
    so apps share filtered strips (a filter of another kind is keyed by itself: not shared).
    An app's ANSI filter maps by the app's ``ansi_theme`` (Textual makes it anew with that
    theme whenever the theme changes)."""
    kind = type(line_filter)
    if kind is ANSIToTruecolor:
        return (kind, ansi_theme)
    if kind is Monochrome or kind is NoColor:
        return kind
    if type(line_filter) is DimFilter:
        return (kind, line_filter.dim_factor)
    return line_filter


#: Each filter object's key (see ``_filter_key``), worked out once: an app's ``ansi_theme``
#: looks the theme up by name among every theme the app knows, and it was asked for every
#: changed row. (Textual replaces the ANSI filter when the theme changes, so a filter object
#: keeps the theme it was first seen with.)
_filter_keys: weakref.WeakKeyDictionary[LineFilter, object] = weakref.WeakKeyDictionary()


def _key_of_filter(line_filter: LineFilter, app: Any) -> object:
    key = _filter_keys.get(line_filter)
    if key is None:
        ansi_theme = app.ansi_theme if type(line_filter) is ANSIToTruecolor else None
        key = _filter_keys[line_filter] = _filter_key(line_filter, ansi_theme)
    return key


def repaint_changed_lines(screen: Any) -> None:
    """Repaint the lines that changed in ``screen``'s line-drawn widgets (due after every
    message a screen handles; a screen drawing at once calls it first)."""
    for widget in _dirty.pop(screen, ()):
        widget._repaint_changed()


class shown(reactive[T], Generic[T]):
    """A reactive attribute of a :class:`TextLines`: setting it repaints the changed lines only
    (a plain ``reactive`` would repaint the whole widget)."""

    def __init__(self, default: Any, *, always_update: bool = False) -> None:
        super().__init__(default, repaint=False, always_update=always_update)

    def __set__(self, obj: Any, value: T) -> None:
        # Screens set every attribute after every move: an equal value changes nothing, and
        # is not handed to Textual's reactive machinery (which looks up validators, watchers
        # and computed attributes by name even then).
        before = getattr(obj, self.internal_name, _UNSET)
        if not self._always_update and before is not _UNSET and before == value:
            return
        super().__set__(obj, value)
        obj.content_changed()


def retitle(widget: Widget, title: str | Content) -> None:
    """Set a widget's border title (markup, or content made from it). Textual repaints the
    whole widget on every set, even of the same title, and tables set theirs after every
    move. (Compared with the title set last: Textual gives a title back as its own markup,
    not always the same string.)
    A :class:`TextLines` drawn already repaints only its top border row, where the title is
    (the hand's title stands out while the player must pick: a whole row box, three rows
    made again, for two players at every move)."""
    last = getattr(widget, "_gambit_title", None)
    # (Content compares its text only: made content is the same object when it is the same.)
    same = last is title or (isinstance(title, str) and isinstance(last, str) and last == title)
    if same and widget.border_title is not None:
        return
    remembered: Any = widget  # (a note of our own on Textual's widget)
    remembered._gambit_title = title
    if not isinstance(widget, TextLines):
        widget.border_title = title
        return
    widget._title_only = widget._shown_key is not None  # drawn already: the rest stays
    try:
        widget.border_title = title
    finally:
        widget._title_only = False


def needs_wrap(line: Text, width: int) -> bool:
    """Whether rich's ``wrap`` would change the line: wider than ``width``, or holding what
    it expands or trims (tabs, whitespace at its end). Most lines fit, and are kept as they
    are (wrapping them cost a tenth of a prompt's update)."""
    plain = line.plain
    return line.cell_len > width or "\t" in plain or plain != plain.rstrip()


def wrapped(lines: Iterable[Text], console: Any, width: int) -> list[Text]:
    """``lines`` wrapped at ``width``; a line that fits is kept as it is."""
    return [
        part
        for line in lines
        for part in (line.wrap(console, width) if needs_wrap(line, width) else (line,))
    ]


def _line_key(line: Text) -> tuple[object, ...]:
    return (line.plain, str(line.style), *line.spans)


class TextLines(Widget):
    """Subclasses write :meth:`build` (what ``render`` would return: a ``Text`` of lines) and
    declare what it reads as :class:`shown` attributes."""

    #: Wrap lines longer than the widget (otherwise they are cropped).
    WRAP = False
    #: A new size is drawn without a second layout of the whole screen (a server
    #: running many apps sets it: server/apphost/textual_layer.py). Textual lays the screen
    #: out again when a widget's virtual size changes; these widgets have no children and no
    #: scrolling of their own, so a new size needs only a repaint (their caches are keyed by
    #: size): a panel shown at the end of a deal laid every player's screen out twice.
    quiet_layout: ClassVar[bool] = False
    #: Set by a new virtual size, for the refresh Textual asks for right after it.
    _new_virtual_size = False
    #: Set while :func:`retitle` sets the title: the refresh that follows is of the top row.
    _title_only = False

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._shown_text: Text | None = None
        self._shown_key: tuple[int, Style, int] | None = None
        self._shown_lines: list[Text] = []
        self._shown_strips: list[Strip] = []
        #: The shared list the lines shown were (None: lines of this widget's own), whose
        #: change to the next shared list another app may have worked out already.
        self._shown_shared: SharedList | None = None
        self._diff_pending = False
        self._stale = True
        # What Textual draws beside each row (see :meth:`_learn_sides`), and the rows drawn.
        self._sides: tuple[tuple[int, int], Strip, Strip] | None = None
        self._sides_key: tuple[object, ...] = ()
        self._framed: dict[int, tuple[Strip | None, Strip]] = {}
        #: ``rich_style`` and the background, which Textual works out from every ancestor's
        #: styles each time it is asked; forgotten when styles change or on a full repaint.
        self._base_style: Style | None = None
        self._background: Any = None

    def build(self) -> Text | list[Text]:
        """The widget's content: one line of the widget per line of text (no wrapping), as
        one ``Text`` or as its lines (cheaper, when the widget makes them one by one)."""
        return Text()

    def content_changed(self) -> None:
        """What :meth:`build` reads changed: once the current message is handled, repaint the
        lines that now differ (several attributes set together cost one comparison)."""
        self._stale = True
        if self._diff_pending or not self.is_mounted or self._shown_key is None:
            return
        self._diff_pending = True
        # On the screen's queue, not the widget's: the screen is usually the one setting the
        # attributes, and runs this right after, without waking one task per widget.
        # A screen handling a message to draw it at once compares them right after it.
        screen = self.screen
        dirty = _dirty.get(screen)
        if dirty is None:
            dirty = _dirty[screen] = []
            if not getattr(screen, "drawing_now", False):
                screen.call_next(repaint_changed_lines, screen)
        dirty.append(self)

    def _repaint_changed(self) -> None:
        self._diff_pending = False
        if self._shown_key is None or not self.is_attached:
            return  # not drawn yet, or removed meanwhile (a recomposed screen)
        changed = self._sync_lines()
        if changed is None:
            super().refresh()  # a new size: everything (Widget's refresh: the sides stay)
        elif len(changed) >= SCROLLED and len(changed) * 2 > len(self._shown_lines):
            # Most rows changed (a log that moved up): repaint every row of text, so the
            # driver sees whole rows and can scroll them instead of writing them again. Only
            # the text changed: the border rows above and below it stay as they are (each
            # repainted row is composed again, and the log's two border rows were a sixth of
            # the rows a move drew). Fewer rows cannot be scrolled: they alone are repainted
            # (the hand's one row of a box of three, at every move of its player).
            # (Regions are of the content area: these rows from the left edge to the right.)
            rows = max(len(self._shown_lines), changed[-1] + 1)
            left = self.styles.gutter.left
            self.refresh(Region(-left, 0, self.outer_size.width, rows))
        elif changed:
            self.refresh(*self._row_regions(changed))

    def _row_regions(self, rows: list[int]) -> list[Region]:
        """Rows as regions of the content area, a run of neighbouring rows as one region."""
        width = max(self._shown_key[0] if self._shown_key else 0, 1)
        regions: list[Region] = []
        start = previous = rows[0]
        for y in [*rows[1:], -2]:
            if y != previous + 1:
                regions.append(Region(0, start, width, previous - start + 1))
                start = y
            previous = y
        return regions

    def _sync_lines(self) -> list[int] | None:
        """Bring the strips up to date: the rows that changed, or None if all of them did."""
        # The height too: what fits (a log's tail) may depend on it.
        size = self.content_size
        key = (size.width, self.base_style, size.height)
        if key == self._shown_key and not self._stale:
            return []
        self._stale = False
        built = self.build()
        lines: list[Text] | Lines
        if isinstance(built, list):
            lines = built
        else:
            if key == self._shown_key and built == self._shown_text:
                return []
            self._shown_text = built
            lines = built.split("\n", allow_blank=True)
        shared = built if isinstance(built, SharedList) and not self.WRAP else None
        previous, self._shown_shared = self._shown_shared, shared
        if self.WRAP:
            lines = wrapped(lines, self.app.console, max(1, key[0]))
        if key != self._shown_key:
            self._shown_key = key
            self._shown_lines = list(lines)
            self._shown_strips = [self._line_strip(line) for line in lines]
            return None
        transition: tuple[object, ...] | None = None
        if shared is not None and previous is not None:
            if shared is previous:
                return []
            # Another app at the table may have made this very change already.
            transition = (id(previous), id(shared), key)
            found = TRANSITIONS.get(transition)
            if found is not None:
                self._shown_lines = list(lines)
                self._shown_strips = list(found[3])
                return list(found[2])
        old_lines, old_strips = self._shown_lines, self._shown_strips
        if lines == old_lines:
            return []
        changed: list[int] = []
        strips: list[Strip] = []
        moved: dict[tuple[object, ...], Strip] | None = None
        for y, line in enumerate(lines):
            if y < len(old_lines) and line == old_lines[y]:
                strips.append(old_strips[y])
                continue
            if moved is None:  # a log's lines move up: their strips are still good
                moved = {_line_key(a): b for a, b in zip(old_lines, old_strips, strict=True)}
            strip = moved.get(_line_key(line))
            strips.append(strip if strip is not None else self._line_strip(line))
            changed.append(y)
        changed.extend(range(len(lines), len(old_lines)))
        self._shown_lines, self._shown_strips = list(lines), strips
        if transition is not None:
            TRANSITIONS.put(transition, (previous, shared, changed, strips))
        return changed

    def _line_strip(self, line: Text) -> Strip:
        width, base, _height = self._shown_key or (0, Style(), 0)
        key = (_line_key(line), width, base)
        strip = _made_strips.get(key)
        if strip is None:
            strip = Strip(line.render(self.app.console, end=""))
            strip = strip.crop_extend(0, width, base).apply_style(base)
            _made_strips[key] = strip
            if len(_made_strips) > MADE_STRIPS:
                del _made_strips[next(iter(_made_strips))]
        return strip

    def watch_virtual_size(self) -> None:
        if TextLines.quiet_layout:
            self._new_virtual_size = True

    def refresh(
        self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False
    ) -> Self:
        if self._new_virtual_size:
            # What a new virtual size asks for (see :attr:`quiet_layout`): not a layout, and
            # no repaint either (a new size has marked the widget dirty already).
            self._new_virtual_size = False
            if not (regions or recompose):
                return self
        if self._title_only and repaint and not (regions or layout or recompose):
            self._framed.pop(0, None)  # the top border row, as last drawn
            # (Regions are of the content area: the border's row is above it.)
            top, _right, _bottom, left = self.styles.gutter
            return super().refresh(Region(-left, -top, self.outer_size.width, 1))
        if repaint and not regions:
            # A style, a title or a size may have changed: learn them anew.
            self._sides = None
            self._base_style = self._background = None
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def render_lines(self, crop: Region) -> list[Strip]:
        # A full repaint (first paint, a resize, a style change) or one for another reason
        # while a comparison is pending: anything that changed meanwhile is drawn now.
        changed = self._sync_lines()
        if changed:
            self.refresh(*self._row_regions(changed))
        sides = self._learn_sides()
        if sides is None:
            return super().render_lines(crop)
        size, left, right = sides
        width, height = size
        top, _right, bottom, _left = self.styles.gutter
        rows: list[Strip] = []
        framed = self._framed
        moved: dict[int, tuple[Strip | None, Strip]] | None = None
        for y in crop.line_range:
            if y < top or y >= height - bottom:
                # Border and padding rows: as Textual draws them, until the next full repaint.
                done = framed.get(y)
                if done is None:
                    done = (None, super().render_lines(Region(0, y, width, 1))[0])
                    framed[y] = done
                rows.append(done[1])
                continue
            content = self.render_line(y - top)
            done = framed.get(y)
            if done is None or done[0] is not content:
                if moved is None:  # a log's rows move up: their framed rows are still good
                    moved = {id(c): (c, row) for c, row in framed.values() if c is not None}
                done = moved.get(id(content))
                if done is None or done[0] is not content:
                    done = (content, self._framed_row(left, self._filtered(content), right))
                framed[y] = done
            rows.append(done[1])
        if crop.column_span != (0, width):
            x1, x2 = crop.column_span
            rows = [row.crop(x1, x2) for row in rows]
        return rows

    @property
    def content_size(self) -> Size:
        """The size inside the border and padding, from the size the layout gave the widget
        (Textual's looks the widget up on its screen each time: every widget asks after
        every move)."""
        width, height = self._size
        top, right, bottom, left = self.styles.gutter
        return Size(max(0, width - left - right), max(0, height - top - bottom))

    @property
    def base_style(self) -> Style:
        """The widget's ``rich_style`` (remembered)."""
        style = self._base_style
        if style is None:
            style = self._base_style = self.rich_style
        return style

    def notify_style_update(self) -> None:
        self._base_style = self._background = None
        super().notify_style_update()

    def _learn_sides(self) -> tuple[tuple[int, int], Strip, Strip] | None:
        """What Textual draws left and right of a content row (border and padding), learnt
        from one row it draws; None when the widget's style needs Textual's full treatment."""
        size = self.outer_size
        if self._sides is not None and self._sides[0] == size:
            return self._sides
        styles = self.styles
        top, right, bottom, left = styles.gutter
        plain = (
            styles.text_opacity == 1.0
            and self.opacity == 1.0
            and not styles.tint.a
            and not (styles.has_rule("hatch") and styles.hatch != "none")
            and not any(edge for edge, _colour in styles.outline)
        )
        if not plain or size.height - top - bottom < 1 or size.width - left - right < 1:
            return None
        content = self.render_line(0)
        row = super().render_lines(Region(0, top, size.width, 1))[0]
        # The row as Textual draws it is the content between its sides, already filtered.
        self._sides = (size, row.crop(0, left), row.crop(size.width - right, size.width))
        self._sides_key = (
            tuple(self._sides[1]),
            tuple(self._sides[2]),
            self.app.console.color_system,
        )
        self._framed = {top: (content, row)}
        return self._sides

    def _framed_row(self, left: Strip, content: Strip, right: Strip) -> Strip:
        """A content row (filtered) between its sides, shared by every app whose sides are
        alike (see ``_framed_rows``)."""
        key = (id(content), *self._sides_key)
        done = _framed_rows.get(key)
        if done is not None and done[0] is content:
            return done[1]
        row = Strip.join([left, content, right])
        _framed_rows[key] = (content, row)
        if len(_framed_rows) > MADE_STRIPS:
            del _framed_rows[next(iter(_framed_rows))]
        return row

    def _filtered(self, content: Strip) -> Strip:
        """A content row as the line filters leave it. (The sides come from a row Textual
        drew, filtered already; a filter changes each segment on its own.)"""
        background = self._background
        if background is None:
            background = self._background = self.background_colors[1]
        filters = self.get_line_filters()
        if not filters:
            return content
        app = self.app
        key = (id(content), background, *[_key_of_filter(f, app) for f in filters])
        done = _filtered_strips.get(key)
        if done is not None and done[0] is content:
            return done[1]
        strip = content
        for line_filter in filters:
            strip = strip.apply_filter(line_filter, background)
        _filtered_strips[key] = (content, strip)
        if len(_filtered_strips) > MADE_STRIPS:
            del _filtered_strips[next(iter(_filtered_strips))]
        return strip

    def render_line(self, y: int) -> Strip:
        if y < len(self._shown_strips):
            return self._shown_strips[y]
        return Strip.blank(self.content_size.width, self.base_style)


class TextPanel(TextLines):
    """A ``Static`` for text that changes often: set :attr:`text`; an equal text repaints
    nothing, and a change never asks for a new layout (the panel's size is set by CSS)."""

    def __init__(
        self, *, wrap: bool = False, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.WRAP = wrap
        self._content = Text()

    @property
    def text(self) -> Text:
        return self._content

    @text.setter
    def text(self, value: Text | str) -> None:
        value = Text(value) if isinstance(value, str) else value
        if value != self._content:
            self._content = value
            self.content_changed()

    def build(self) -> Text:
        return self._content
