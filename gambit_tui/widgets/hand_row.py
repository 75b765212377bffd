"""The player's hand in a trick game: cards in a row with a cursor, the unplayable ones dimmed.

Shared by the trick games' table screens (Prophet, Fortunes): the screen gives the cards, which
of them may be played now and how its deck looks (:class:`~gambit_tui.cards.DeckFaces`); the
row sorts them by the player's preference, keeps the cursor on the same card as the hand
changes, and posts :class:`HandRow.Play` when the player plays the card under the cursor.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events
from textual.message import Message

from ..cards import CardStyle, DeckFaces
from .choice_row import Choice, ChoiceRow, digit_range


def choice_item(choice: Choice, index: int, cursor: int, *, numbered: bool, padded: bool) -> Text:
    """A hand's choice as drawn: its digit (``numbered``, the first ten), dimmed and struck
    through when it may not be picked, in reverse video under the cursor; ``padded``, in
    brackets there and between spaces elsewhere."""
    item = Text()
    if numbered and index < 10:
        item.append(str((index + 1) % 10), style="dim")
        item.append(" ")
    item.append_text(choice.label)
    if not choice.enabled:
        item.stylize("dim strike")
    if index == cursor and choice.enabled:
        if padded:
            item = Text("[", style="bold") + item + Text("]", style="bold")
        item.stylize("reverse")
    elif padded:
        item = Text(" ") + item + Text(" ")
    return item


class FittingChoiceRow(ChoiceRow):
    """A :class:`ChoiceRow` that always fits one line: when the roomy layout (digits, wide
    gaps, brackets round the cursor) is too wide, every choice is drawn bare, one space
    apart, the cursor in reverse video. 17 cards or 18 bids fit 80 columns this way."""

    def build(self) -> Text:
        if not self.choices:
            return Text(self.placeholder, style="dim")
        roomy = self._layout(compact=False)
        if roomy.cell_len <= self.layout_width():
            return roomy
        return self._layout(compact=True)

    def digit_keys(self) -> str:
        """The digits beside the first ten choices, when the roomy layout fits ("" when the
        choices are drawn bare)."""
        if not self.numbered or not self.choices:
            return ""
        cells = self._cells  # (the layout below remembers its own cells: keep the drawn ones)
        fits = self._layout(compact=False).cell_len <= self.layout_width()
        self._cells = cells
        return digit_range(len(self.choices)) if fits else ""

    def _layout(self, *, compact: bool) -> Text:
        out = Text()
        self._cells = []
        for i, choice in enumerate(self.choices):
            if i:
                out.append(" " if compact else "  ")
            numbered = self.numbered and not compact
            item = choice_item(choice, i, self.cursor, numbered=numbered, padded=not compact)
            self._cells.append((out.cell_len, out.cell_len + item.cell_len))
            out.append_text(item)
        return out


class HandRow(FittingChoiceRow):
    """A hand of cards. Left/Right (:meth:`move`) and digits (:meth:`pick`, 1–9 and 0 for the
    tenth card) move the cursor over the playable cards only; :meth:`play` is what Enter does.
    A long hand drops the digit labels and the spacing so it still fits one line."""

    class Play(Message):
        """The player plays ``card`` (always one of the playable cards)."""

        def __init__(self, card: str) -> None:
            super().__init__()
            self.card = card

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        #: The cards as last shown, in hand order.
        self.cards: list[str] = []
        #: What :meth:`show` was last given, and the choices it set.
        self._shown_hand: tuple[Any, ...] | None = None
        self._shown_choices: list[Choice] | None = None

    def show(
        self,
        cards: list[str],
        *,
        faces: DeckFaces,
        style: CardStyle,
        order: str = "suit",
        playable: set[str] | None = None,
    ) -> None:
        """Show ``cards`` sorted by ``order`` ("suit" or "rank"); with ``playable``, every other
        card is dimmed and cannot be picked (None: every card may be picked). The same cards
        shown the same way again change nothing (most moves are other players')."""
        shown = (
            tuple(cards),
            faces,
            style,
            order,
            None if playable is None else frozenset(playable),
        )
        if shown == self._shown_hand and self.choices is self._shown_choices:
            return
        before = self.selected
        self.cards = faces.sort(list(cards), order)
        self.choices = [
            Choice(faces.text(c, style), c, enabled=playable is None or c in playable)
            for c in self.cards
        ]
        if before in self.cards:
            index = self.cards.index(before)
            if self.choices[index].enabled:
                self.cursor = index
        self._shown_hand, self._shown_choices = shown, self.choices

    def play(self) -> bool:
        """Play the card under the cursor; False when there is none that may be played."""
        card = self.selected
        if card is None:
            return False
        self.post_message(self.Play(card))
        return True

    def on_click(self, event: events.Click) -> None:
        """Mouse is optional: a click picks a card (:class:`ChoiceRow` does that, as Textual
        runs its handler too); a double click on the picked card plays it."""
        offset = event.get_content_offset(self)
        if event.chain < 2 or offset is None or not 0 <= self.cursor < len(self._cells):
            return
        start, end = self._cells[self.cursor]
        if start <= offset.x < end:
            self.play()

    def pick_digit(self, digit: int) -> bool:
        """Pick by a digit key: 1–9 the first nine cards, 0 the tenth."""
        return self.pick(digit - 1 if digit else 9)
