"""A row of things to pick from — your hand, another player's hand, the discard pile, players —
with a cursor moved by arrows and digits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import events
from textual.content import Content
from textual.markup import escape
from textual.message import Message

from gambit_tui.shared_memos import shared_memo

from ..i18n import _
from .text_lines import TextLines, retitle, shown

#: Titles of active rows made, for every app in the process, by heading (at most
#: ``MADE_TITLES``, the oldest made go first). Textual parses a title's markup at every set,
#: CSS tokens and all, for two players at every move; the content it makes keeps the theme
#: colour by name (``$accent``), found in each app's own theme where it is drawn.
_active_titles: dict[str, Content] = shared_memo("choice titles", {})
MADE_TITLES = 256


def digit_range(count: int, *, first: int = 1) -> str:
    """The digit keys that pick among ``count`` choices, written as a range: "1–6"; the tenth
    choice's key is 0 ("1–9, 0"); bids start at 0 ("0–3")."""
    if first == 0:
        return f"0–{min(9, count - 1)}"
    if count >= 10:
        return "1–9, 0"
    return f"1–{count}"


def pick_hint(row: ChoiceRow) -> str:
    """How to pick another choice in ``row``, saying only what works now: nothing when there
    is nothing else to pick, the digits only when the row shows them."""
    if sum(1 for choice in row.choices if choice.enabled) < 2:
        return ""
    keys = row.digit_keys()
    return _("←→ or {keys} pick").format(keys=keys) if keys else _("←→ pick")


@dataclass(frozen=True, slots=True)
class Choice:
    """One pickable thing: how it looks, what it stands for, and whether it may be picked."""

    label: Text
    value: Any
    enabled: bool = True


class ChoiceRow(TextLines):
    """The cards (or players) a decision is about. The screen sets :attr:`choices`; keys call
    :meth:`move` and :meth:`pick` (the same methods tests call), and every change of the cursor
    posts :class:`ChoiceRow.Moved` so the screen can name the picked card."""

    DEFAULT_CSS = """
    ChoiceRow {
        height: 3;
        border: round $primary 50%;
        border-title-color: $foreground;
        padding: 0 1;
    }
    """

    choices: shown[list[Choice]] = shown(list)
    """What may be picked, in order (an equal list changes nothing: the cursor stays)."""
    cursor: shown[int] = shown(0)
    """Index of the picked choice."""
    numbered: shown[bool] = shown(True)
    """Show the digit that picks each choice."""
    placeholder: shown[str] = shown("")
    """Shown when there is nothing to pick."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        #: Where each choice was drawn (first and last cell), for mouse clicks.
        self._cells: list[tuple[int, int]] = []
        self._heading = ""
        self._active = False

    @property
    def heading(self) -> str:
        """The title on the border (plain text, not markup)."""
        return self._heading

    @heading.setter
    def heading(self, heading: str) -> None:
        self._heading = heading
        self._retitle()

    @property
    def active(self) -> bool:
        """Whether the player must pick from this row now: its title stands out."""
        return self._active

    @active.setter
    def active(self, active: bool) -> None:
        self._active = active
        self._retitle()

    def _retitle(self) -> None:
        # The title's look, not the whole border's (a border in a new colour is two rows to
        # send), and in the title's own markup, not a CSS class: a class toggled restyled the
        # widget, for two players at every move (a tenth of their update).
        title = escape(self._heading)
        retitle(self, self._active_title(title) if self._active else title)

    def title_content(self) -> Content:
        """The title as the border shows it (standing out while active), for a line that
        carries it in the border's place (:class:`~gambit_tui.widgets.panel_join.PanelJoin`)."""
        if self._active:
            return self._active_title(escape(self._heading))
        return Content(self._heading)

    @staticmethod
    def _active_title(title: str) -> Content:
        made = _active_titles.get(title)
        if made is None:
            if len(_active_titles) >= MADE_TITLES:
                del _active_titles[next(iter(_active_titles))]
            made = _active_titles[title] = Content.from_markup(f"[bold reverse $accent]{title}[/]")
        return made

    class Moved(Message):
        """The cursor now rests on ``value``."""

        def __init__(self, value: Any) -> None:
            super().__init__()
            self.value = value

    def watch_choices(self, choices: list[Choice]) -> None:
        if not choices:
            self.cursor = 0
            return
        if not 0 <= self.cursor < len(choices) or not choices[self.cursor].enabled:
            self.cursor = next((i for i, c in enumerate(choices) if c.enabled), 0)
        self.post_message(self.Moved(self.selected))

    def watch_cursor(self, cursor: int) -> None:
        self.post_message(self.Moved(self.selected))

    @property
    def selected(self) -> Any:
        """The value under the cursor, or None when nothing may be picked."""
        if not self.choices or not 0 <= self.cursor < len(self.choices):
            return None
        choice = self.choices[self.cursor]
        return choice.value if choice.enabled else None

    def move(self, delta: int) -> None:
        """Move to the next enabled choice ``delta`` steps away (wrapping around)."""
        n = len(self.choices)
        if not n:
            return
        index = self.cursor
        for _step in range(n):
            index = (index + (1 if delta > 0 else -1)) % n
            if self.choices[index].enabled:
                self.cursor = index
                return

    def pick(self, index: int) -> bool:
        """Put the cursor on choice ``index`` (0-based); False if there is no such choice."""
        if 0 <= index < len(self.choices) and self.choices[index].enabled:
            self.cursor = index
            return True
        return False

    def digit_keys(self) -> str:
        """The digit keys the row shows beside its choices ("1–6"), "" when it shows none.
        (Here the first nine are labelled; rows that draw otherwise say so themselves.)"""
        if not self.numbered or not self.choices:
            return ""
        return digit_range(min(9, len(self.choices)))

    def layout_width(self) -> int:
        """The width the choices are drawn in: the laid-out content's, or, before the first
        layout, the screen's less the border and padding (a hint made before the layout must
        not say what the drawing will not show)."""
        width = self.content_size.width
        if width <= 0:
            width = self.app.size.width - self.styles.gutter.width
        return max(1, width)

    def on_resize(self) -> None:
        # What fits may have changed (the digits shown or not): the screen's hint follows.
        self.post_message(self.Moved(self.selected))

    def build(self) -> Text:
        if not self.choices:
            return Text(self.placeholder, style="dim")
        out = Text()
        self._cells = []
        for i, choice in enumerate(self.choices):
            if i:
                out.append("  ")
            item = Text()
            if self.numbered and i < 9:
                item.append(f"{i + 1}", style="dim")
                item.append(" ")
            item.append_text(choice.label)
            if not choice.enabled:
                item.stylize("dim strike")
            elif i == self.cursor:
                item = Text("[", style="bold") + item + Text("]", style="bold")
                item.stylize("reverse")
            else:
                item = Text(" ") + item + Text(" ")
            self._cells.append((out.cell_len, out.cell_len + item.cell_len))
            out.append_text(item)
        return out

    def on_click(self, event: events.Click) -> None:
        """Mouse is optional: a click picks the choice under it, like its digit key."""
        offset = event.get_content_offset(self)
        if offset is None:  # on the border
            return
        for index, (start, end) in enumerate(self._cells):
            if start <= offset.x < end:
                self.pick(index)
                return
