"""The footer: every key the player can press now, in their language."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TYPE_CHECKING, ClassVar, NamedTuple

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

from gambit_tui.shared_memos import shared_memo

from ..i18n import N_, _

#: Cells between two keys.
GAP = 2
#: Footer keys of Textual's own widgets, so that the catalogs translate them too.
TEXTUAL_KEYS = (N_("Dismiss menu"),)

if TYPE_CHECKING:
    from textual.screen import Screen

#: Footers already drawn, for every app in the process, by keys, width and styles (at most
#: ``MADE_FOOTERS``, the oldest made go first). Strips are never changed once made.
_made_footers: dict[
    tuple[object, ...], tuple[list[Strip], list[tuple[int, int, int, FooterItem]]]
] = shared_memo("footers", {})
MADE_FOOTERS = 256


class FooterItem(NamedTuple):
    key: str
    """The key to simulate when the item is clicked."""
    shown: str
    """How the key is written ("⏎", "←→", "q")."""
    description: str
    """What it does, translated."""
    enabled: bool


class GambitFooter(Widget):
    """A line of keys (two or three when they do not fit), drawn by one widget.

    Textual's own footer is a widget per key and is rebuilt (composed, mounted, styled) every
    time the screen's bindings are re-checked, which a table does after every move: with a
    hundred players in one server process that was a third of its CPU. This footer works out
    the same list, and repaints only when the list changed. Descriptions are translated as they
    are shown: bindings are class attributes written once in English (marked with ``N_``), so
    one footer works for every player's language in the same process.
    """

    #: How the host finds a screen's bindings for the footer: for each key a shown binding
    #: wins, that binding and whether it is enabled, as ``Screen.active_bindings`` says (None:
    #: ask it). Textual's asks every binding's ``check_action``, a table after every move; a
    #: server running many apps sets a faster way (server/apphost/shown_bindings.py).
    shown_bindings: ClassVar[Callable[[Screen], Iterable[tuple[Binding, bool]]] | None] = None
    COMPONENT_CLASSES: ClassVar[set[str]] = {"footer--key"}
    DEFAULT_CSS = """
    GambitFooter {
        dock: bottom;
        height: auto;
        max-height: 3;
        background: $panel;
        color: $foreground;
    }
    GambitFooter > .footer--key {
        color: $footer-key-foreground;
        text-style: bold;
    }
    """

    def __init__(self) -> None:
        super().__init__()
        self.items: tuple[FooterItem, ...] = ()
        #: Where each item is drawn: row, first and last column.
        self._spans: list[tuple[int, int, int, FooterItem]] = []
        self._strips: list[Strip] = []
        self._strips_key: tuple[object, ...] | None = None
        #: What the screen's keys depended on when they were last collected (see
        #: :meth:`bindings_changed`); None: collect them at the next change.
        self._state: Hashable | None = None
        #: The most rows the keys have needed, and at which width.
        self._tallest = (0, 0)

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed, immediate=True)
        self.bindings_changed(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, screen: Screen) -> None:
        if not self.is_attached or screen is not self.screen:
            return
        # A screen that can say cheaply what its keys depend on (``bindings_state()``: None
        # if it cannot now) is asked that first: a table asks the footer to look again after
        # every move, and most moves change no key (collecting them was a tenth of an update).
        state_of = getattr(screen, "bindings_state", None)
        state = state_of() if state_of is not None else None
        if state is not None:
            state = (state, screen.focused)  # a focused widget's keys join the screen's
            if state == self._state:
                return
        self._state = state
        items = self.collect(screen)
        if items != self.items:
            width = self.size.width
            rows = self._height(width)
            self.items = items
            # A new layout only when the keys need more rows than before.
            self.refresh(layout=self._height(width) != rows)

    def collect(self, screen: Screen) -> tuple[FooterItem, ...]:
        """The shown bindings, one item per action (as Textual's footer groups them).

        A screen may write an action's keys its own way (``footer_keys(action, shown)``: the
        bid's arrows and the digits that choose it, "←→ 0–3"), as they are at this moment.

        The bindings are Textual's ``Screen.active_bindings``: for each key, the first binding
        along the binding chain that is not disabled (a priority binding replaces one
        without), or the same found faster where the app's host set :attr:`shown_bindings`.
        """
        app = self.app
        find = GambitFooter.shown_bindings
        if find is not None:
            winners = find(screen)
        else:
            winners = [(shown.binding, shown.enabled) for shown in screen.active_bindings.values()]
        by_action: dict[str, FooterItem] = {}
        keys_of = getattr(screen, "footer_keys", None)
        for binding, enabled in winners:
            if not binding.show or binding.action in by_action:
                continue
            shown = app.get_key_display(binding)
            if keys_of is not None:
                shown = keys_of(binding.action, shown)
            by_action[binding.action] = FooterItem(
                binding.key,
                shown,
                _(binding.description) if binding.description else "",
                enabled,
            )
        return tuple(by_action.values())

    @staticmethod
    def _label(item: FooterItem) -> str:
        return f"{item.shown} {item.description}" if item.description else item.shown

    def _rows(self, width: int) -> list[list[FooterItem]]:
        """The items in rows of at most ``width`` cells, first row first (it is drawn at the
        bottom, the others above it): a row that would be longer starts a new one (the keys
        of a table in German do not fit one row of 80 columns), up to the footer's
        ``max-height`` (a screen with no row to spare sets it to 1: its row is then cut at
        the edge)."""
        rows: list[list[FooterItem]] = [[]]
        most = self.styles.max_height
        most_rows = int(most.value) if most is not None and most.is_cells else 3
        used = 0
        for item in self.items:
            length = cell_len(self._label(item))
            if rows[-1] and width and used + GAP + length > width and len(rows) < most_rows:
                rows.append([])
                used = 0
            used += (GAP if rows[-1] else 0) + length
            rows[-1].append(item)
        return rows

    def _height(self, width: int) -> int:
        """The footer's rows: the most its keys have needed at this width. Keys come and go
        with the phases of a deal (at 80 columns the Fate's two keys take a second row): a
        footer that shrank again laid the whole screen out anew, the log a row taller, then
        shorter, at every such move of every player (a tenth of the drawing)."""
        rows = len(self._rows(width))
        seen_width, seen = self._tallest
        if seen_width == width:
            rows = max(rows, seen)
        self._tallest = (width, rows)
        return rows

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self._height(width)

    def render(self) -> Text:
        return self._made(self.size.width)[0]

    def _made(self, width: int) -> tuple[Text, list[tuple[int, int, int, FooterItem]]]:
        """The footer's text and where each item is in it."""
        key_style = self.get_component_rich_style("footer--key", partial=True)
        dim = Style(dim=True)
        spans = []
        rows = self._rows(width)
        # Rows the keys needed before and do not now stay blank, on top.
        lines = [Text(end="") for _ in range(self._height(width) - len(rows))]
        # The first keys (the game's) on the bottom row, always; the rest above them.
        for y, row in enumerate(reversed(rows), start=len(lines)):
            line = Text(no_wrap=True, overflow="crop", end="")
            for index, item in enumerate(row):
                if index:
                    line.append(" " * GAP)
                start = line.cell_len
                line.append(item.shown, key_style if item.enabled else key_style + dim)
                if item.description:
                    line.append(" " + item.description, None if item.enabled else dim)
                spans.append((y, start, line.cell_len, item))
            lines.append(line)
        return Text("\n", no_wrap=True, overflow="crop", end="").join(lines), spans

    def render_line(self, y: int) -> Strip:
        # The Line API, each row made once per change of keys, size or style: Textual's
        # render() path made a Visual and its Content again on every repaint. Shared by every
        # app in the process: the players at a table mostly see the same keys.
        width = self.size.width
        base = self.rich_style
        # (The height is not in the key: at the same keys and width it cannot change.)
        key = (self.items, width, base, self.styles.max_height)
        if self._strips_key != key:
            key_style = self.get_component_rich_style("footer--key", partial=True)
            made_key = (*key, key_style, self._height(width))
            made = _made_footers.get(made_key)
            if made is None:
                text, spans = self._made(width)
                console = self.app.console
                strips = [
                    Strip(line.render(console, end=""))
                    .crop_extend(0, width, base)
                    .apply_style(base)
                    for line in text.split("\n", allow_blank=True)
                ]
                made = _made_footers[made_key] = (strips, spans)
                if len(_made_footers) > MADE_FOOTERS:
                    del _made_footers[next(iter(_made_footers))]
            self._strips, self._spans = made
            self._strips_key = key
        return self._strips[y] if y < len(self._strips) else Strip.blank(width, base)

    def on_click(self, event: events.Click) -> None:
        for y, start, end, item in self._spans:
            if y == event.y and start <= event.x < end:
                if item.enabled:
                    self.app.simulate_key(item.key)
                else:
                    self.app.bell()
                return
