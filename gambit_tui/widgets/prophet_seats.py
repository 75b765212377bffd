"""Every seat at a Prophet table: who, the dealer, the bid, tricks won against it, the total,
and the turn timer."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from ..cards import CardStyle
from ..i18n import _
from ..names import seat_label


def won_text(won: int, bid: int | None) -> Text:
    """Tricks won, measured against the bid: exactly the bid is green, over it red."""
    text = Text(str(won))
    if bid is None:
        text.stylize("dim")
    elif won == bid:
        text.stylize("bold green")
    elif won > bid:
        text.stylize("bold red")
    return text


class ProphetSeats(Widget):
    """One line per seat under a header line. Everything comes from the table message the
    screen sets; timers come as seconds left per seat, counted down by the screen."""

    DEFAULT_CSS = """
    ProphetSeats {
        border: round $primary 50%;
        border-title-color: $foreground;
        height: 100%;
        width: 1fr;
        padding: 0 1;
    }
    """

    message: reactive[dict[str, Any] | None] = reactive(None, always_update=True)
    """The last ``table`` message of this table."""
    style: reactive[CardStyle] = reactive(CardStyle)
    """How to draw marks (ASCII or Unicode)."""
    timers: reactive[dict[int, float]] = reactive(dict, always_update=True)
    """Seconds left on each seat's turn timer."""

    def on_mount(self) -> None:
        self.border_title = _("Seats")

    def render(self) -> Table:
        grid = Table.grid(padding=(0, 1))
        grid.add_column(no_wrap=True, width=1)
        grid.add_column(no_wrap=True, max_width=14, overflow="ellipsis")
        grid.add_column(no_wrap=True, width=1)
        for _i in range(3):
            grid.add_column(no_wrap=True, justify="right")
        grid.add_column(no_wrap=True)
        message = self.message
        if not message:
            return grid
        info = message["info"]
        view = message.get("view") or {}
        mine = message.get("seat")
        if view:
            grid.add_row(
                "", "", "", Text(_("Bid"), style="dim"), Text(_("Won"), style="dim"),
                Text(_("Total"), style="dim"), "",
            )  # fmt: skip
        bids = view.get("bids") or []
        tricks = view.get("tricks") or []
        totals = view.get("totals") or []
        turn_mark = ">" if self.style.ascii else "▶"
        for seat in info["seats"]:
            s = seat["seat"]
            marker = Text(turn_mark, style="bold") if view and view.get("turn") == s else Text(" ")
            name = seat_label(seat, s == mine)
            dealer_seat = view.get("dealer", info.get("dealer")) if view else info.get("dealer")
            dealer = Text(_("D"), style="bold") if dealer_seat == s else Text(" ")
            if not view:
                grid.add_row(marker, name, dealer, "", "", "", self._timer(s))
                continue
            bid = bids[s] if s < len(bids) else None
            grid.add_row(
                marker,
                name,
                dealer,
                Text("—" if bid is None else str(bid), style="dim" if bid is None else "bold"),
                won_text(tricks[s] if s < len(tricks) else 0, bid),
                Text(str(totals[s] if s < len(totals) else 0)),
                self._timer(s),
            )
        return grid

    def _timer(self, s: int) -> Text:
        left = self.timers.get(s)
        if left is None:
            return Text("")
        return Text(f"{int(left + 0.999)}s", style="bold" if left > 10 else "bold red")
