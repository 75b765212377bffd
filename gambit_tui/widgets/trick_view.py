"""The trick on the table, who led it, and the last trick on demand.

Shared by the trick games' table screens (Prophet, Fortunes). A trick travels as the engines
write it: ``[[seat, card], …]`` in the order played, the first entry the leader's. Cards are
drawn with the game's :class:`~gambit_tui.cards.DeckFaces`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual.widget import Widget

from ..cards import CardStyle, DeckFaces
from ..i18n import _

Names = Callable[[int], str]
Trick = list[list[Any]]


def trick_grid(
    trick: Trick,
    players: int,
    names: Names,
    faces: DeckFaces,
    style: CardStyle,
    *,
    leader: int | None = None,
    turn: int | None = None,
    winner: int | None = None,
) -> Table:
    """One row per seat in playing order from the leader: who, their card (or ·· while
    they have not played), and marks for the lead, the seat to play and the winner."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True, width=1)
    grid.add_column(no_wrap=True, max_width=12, overflow="ellipsis")
    grid.add_column(no_wrap=True)
    grid.add_column(no_wrap=True, style="dim")
    if trick:
        leader = trick[0][0]
    if leader is None or not players:
        return grid
    played = {seat: card for seat, card in trick}
    arrow, check = (">", "+") if style.ascii else ("▶", "✓")
    for i in range(players):
        seat = (leader + i) % players
        card = played.get(seat)
        marker = Text(" ")
        if seat == winner:
            marker = Text(check, style="bold green")
        elif seat == turn and card is None:
            marker = Text(arrow, style="bold")
        face = faces.text(card, style) if card is not None else Text("··", style="dim")
        if seat == winner:
            face.stylize("reverse")
        note = _("led") if i == 0 else ""
        if seat == winner:
            note = _("won")
        grid.add_row(marker, Text(names(seat)), face, note)
    return grid


class TrickView(Widget):
    """The trick being played. Between two tricks (the table clears a trick the moment it is
    complete) it keeps showing the last one, dimmed, with its winner, until the next card."""

    DEFAULT_CSS = """
    TrickView {
        border: round $primary 50%;
        border-title-color: $foreground;
        height: 100%;
        width: 30;
        padding: 0 1;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._trick: Trick = []
        self._last: dict[str, Any] | None = None
        self._players = 0
        self._leader: int | None = None
        self._turn: int | None = None
        self._names: Names = str
        self._faces: DeckFaces | None = None
        self._style = CardStyle()

    def on_mount(self) -> None:
        self.border_title = _("Trick")

    def show(
        self,
        trick: Trick,
        *,
        players: int,
        leader: int | None,
        turn: int | None,
        last: dict[str, Any] | None,
        names: Names,
        faces: DeckFaces,
        style: CardStyle,
    ) -> None:
        """Set what the view shows: the current ``trick`` (possibly empty), who leads it,
        whose turn it is, and the ``last`` trick (``{"leader", "cards", "winner"}``)."""
        self._trick = [list(p) for p in trick]
        self._players = players
        self._leader = leader
        self._turn = turn
        self._last = last
        self._names = names
        self._faces = faces
        self._style = style
        self.refresh()

    @property
    def showing_last(self) -> bool:
        """Whether the view shows the last trick (the current one has no card yet)."""
        return not self._trick and self._last is not None

    def render(self) -> RenderableType:
        faces = self._faces
        if faces is None or (self._leader is None and not self._trick):
            return Text("")
        out = Table.grid()
        out.add_column()
        if self.showing_last:
            last = self._last or {}
            winner = last.get("winner")
            assert winner is not None  # (a finished trick has its winner)
            head = Text(_("{name} took the last trick.").format(name=self._names(winner)))
            head.stylize("dim")
            out.add_row(head)
            grid = trick_grid(
                last.get("cards") or [],
                self._players,
                self._names,
                faces,
                self._style,
                winner=winner,
            )
            out.add_row(grid)
            return out
        leader = self._trick[0][0] if self._trick else self._leader
        assert leader is not None  # (see the check above)
        if self._trick:
            head = Text(_("Led by {name}").format(name=self._names(leader)), style="bold")
        else:
            head = Text(_("{name} leads.").format(name=self._names(leader)), style="bold")
        out.add_row(head)
        out.add_row(
            trick_grid(
                self._trick,
                self._players,
                self._names,
                faces,
                self._style,
                leader=leader,
                turn=self._turn,
            )
        )
        return out


def last_trick_text(
    last: dict[str, Any] | None,
    players: int,
    names: Names,
    faces: DeckFaces,
    style: CardStyle,
) -> RenderableType:
    """The body of the last-trick overlay: who led, every card, who won."""
    if not last:
        return Text(_("No trick has been taken yet this round."), style="dim")
    out = Table.grid()
    out.add_column()
    out.add_row(Text(_("Led by {name}").format(name=names(last["leader"]))))
    out.add_row(trick_grid(last["cards"], players, names, faces, style, winner=last.get("winner")))
    out.add_row(Text(_("{name} won the trick.").format(name=names(last["winner"])), style="bold"))
    return out
